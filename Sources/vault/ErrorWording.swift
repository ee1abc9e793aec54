import VaultCore

extension VaultError {
    /// The line the tool prints for this error: the input it is about and the remedy in the
    /// tool's own terms (the flags and variables), which the library does not know, around the
    /// library's message.
    var wording: String {
        let subject = input.map { Self.wording(of: $0) + " " } ?? ""
        return subject + message + (remedy.map(Self.wording(of:)) ?? "")
    }

    private static func wording(of input: Input) -> String {
        switch input {
        case .backend: return "--backend"
        case .migrationSource: return "--from"
        case .migrationDestination: return "--to"
        case .migrationStores(let source, let destination): return "--from \(source) and --to \(destination)"
        case .recipient(nil): return "--recipient"
        case .recipient(let number?): return "--recipient number \(number)"
        case .binding(let number): return "--env number \(number):"
        case .passphrase: return "--passphrase"
        case .variable(let name): return name
        }
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
        case .useFileBackend: return ", or use --backend file"
        case .logInAgain(let account): return "; run 'vault oauth login \(account)' again"
        case .logIn(let account): return "; run 'vault oauth login \(account)'"
        case .storeTokenAgain: return "; run 'vault oauth login' or 'vault set' again"
        case .storeClientSecret(let name): return "; store it with 'vault set \(name)'"
        case .trustRefresh(let account, let orListOrigin):
            return ": check it with 'vault show \(account)', then run 'vault trust \(account)'"
                + (orListOrigin ? " or list its origin in VAULT_REFRESH_ORIGINS" : "")
        case .trustHeader: return ": check who changed it, then run 'vault trust'"
        case .rekey: return "; use 'vault rekey' to change its keys"
        case .diagnoseAndReport(toProvider: true): return "; run 'vault doctor' and report it to the provider"
        case .diagnoseAndReport(toProvider: false): return "; run 'vault doctor' and report it"
        case .retryOrDiagnose: return "; retry, or run 'vault doctor'"
        case .approveInProvider:
            return ": approve vault in the provider (KeePassXC asks in a dialog, which vault lets it show when run at "
                + "a terminal on the desktop; or turn off \"Confirm when passwords are retrieved by clients\" in its "
                + "Secret Service settings) and retry"
        case .allowAccessRequest(let morePromptTime):
            return "; run vault again and allow it"
                + (morePromptTime ? " (raise VAULT_PROMPT_TIMEOUT for more time)" : "")
        case .unlockKeyringOrAnswerDialog:
            return ": unlock it (log in to the desktop, or unlock the database in KeePassXC), or run vault at a "
                + "terminal on the desktop to answer the provider's dialog"
        case .nextGetStores(let account, let after):
            // The store failure's own remedy comes first, where its message left off: it is what
            // lets the next read store the kept token.
            return (after.map(Self.wording(of:)) ?? "")
                + "; the refreshed token of '\(account)' is kept and will be stored by the next 'vault get \(account)'"
        }
    }
}
