extension VaultError {
    /// What the caller can do about a failure, as data. The library says what happened in
    /// ``VaultError/message``; the front end words the remedy in its own terms (the command-line
    /// tool names the flag or variable that does it).
    public enum Remedy: Sendable, Equatable {
        /// The value has expired: set a new one, or read it anyway (`allowExpired`).
        case allowExpired
        /// Some secrets differ in the migration's destination: the migration can replace them
        /// (`Migration.Options.overwrite`).
        case overwriteMigrated
        /// Some imported secrets differ from the stored ones: the import can replace them
        /// (`Vault.importSecrets(_:overwrite:)`).
        case overwriteImported
        /// The vault file named is not a regular file: name one that is.
        case nameRegularFile
        /// No default vault file can be derived: name the vault file explicitly.
        case nameVaultFile
        /// The vault file is a symbolic link to nothing: create its target, or name another file.
        case createLinkTarget
        /// The dotenv format cannot hold this secret: the JSON format can.
        case useJSONFormat
        /// A variable derived from a secret's name is not allowed: bind it explicitly.
        case bindExplicitly
        /// Two secrets' names derive the same variable: bind one of them explicitly.
        case bindOneExplicitly
        /// No variable name can be derived from the name `account`: bind one to it explicitly.
        case bindVariable(account: String)
        /// The Secret Service cannot be used here: the file backend needs none.
        case useFileBackend
    }
}

extension VaultError {
    /// The same failure told with another message (usually this one in a context): the code,
    /// the input, the remedy and the error number are kept.
    public func withMessage(_ message: String) -> VaultError {
        VaultError(code, message, input: input, remedy: remedy, errno: errno)
    }
}
