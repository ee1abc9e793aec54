import VaultCore

extension VaultError {
    /// The line the tool prints for this error: the library's message, then its remedy in the
    /// tool's own terms (the flags and variables that do it), which the library does not know.
    var wording: String {
        guard let remedy else { return message }
        return message + Self.wording(of: remedy)
    }

    private static func wording(of remedy: Remedy) -> String {
        switch remedy {
        case .allowExpired: return "; set a new value, or use --allow-expired"
        case .overwriteMigrated: return " (use --overwrite to replace them)"
        case .overwriteImported: return " (use --overwrite to replace)"
        case .nameRegularFile: return "; name a regular file with --file or VAULT_FILE"
        case .nameVaultFile: return "; give the vault file with --file or VAULT_FILE"
        case .createLinkTarget: return "; create the target or name it with --file"
        case .useJSONFormat: return "; use --format json"
        case .bindExplicitly: return "; bind it explicitly with --env VAR=NAME"
        case .bindOneExplicitly: return "; bind one of them with --env VAR=NAME"
        case .bindVariable(let account): return "; bind it with --env VAR=\(account)"
        }
    }
}
