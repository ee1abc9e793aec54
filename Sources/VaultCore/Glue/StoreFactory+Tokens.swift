/// The glue for living tokens (docs/tokens.md): the variables that govern refreshes.
extension StoreFactory {
    /// `VAULT_REFRESH_SKEW` (seconds, default 60, 0 allowed), the lock directory, and the
    /// environment a refresh command runs with.
    public func tokenSettings(endpoint: (any TokenEndpoint)? = nil) throws(VaultError) -> TokenSettings {
        var skew = TokenSettings.defaultRefreshSkew
        if let text = environment["VAULT_REFRESH_SKEW"], !text.isEmpty {
            guard let seconds = Int64(text), seconds >= 0, seconds <= 366 * 86_400 else {
                throw VaultError(.usage, "VAULT_REFRESH_SKEW is '\(text)'; give whole seconds from 0, e.g. 60")
            }
            skew = seconds
        }
        let directory: String?
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            directory = runtime + "/vault"
        } else {
            directory = (try? filePath()).map { FileSystem.directory(of: $0) }
        }
        return TokenSettings(
            refreshSkew: skew, lockDirectory: directory,
            commandEnvironment: environment.filter { !Self.holdsKeyMaterial($0.key) }, endpoint: endpoint)
    }

    /// Whether a variable holds a vault's key material itself (`VAULT_PASSPHRASE`,
    /// `VAULT_TO_IDENTITY`, ...): a refresh command never sees those.
    static func holdsKeyMaterial(_ variable: String) -> Bool {
        variable.hasPrefix("VAULT_") && (variable.hasSuffix("_PASSPHRASE") || variable.hasSuffix("_IDENTITY"))
    }
}
