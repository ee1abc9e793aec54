extension VaultError {
    /// The input a message is about, as data. The message says what is wrong with it ("is 'x';
    /// use file, file:PATH, secret-service or openbao"); the front end names the input in its own
    /// terms (the command-line tool names its flag), the library only in ``VaultError/description``.
    public enum Input: Sendable, Equatable {
        /// The backend asked for in ``GlobalOptions/backend``.
        case backend
        /// The store a migration reads from (``StoreFactory/migrationStores(from:to:)``).
        case migrationSource
        /// The store a migration writes to.
        case migrationDestination
        /// Both stores of a migration, as given.
        case migrationStores(source: String, destination: String)
        /// An age public key given as a recipient; `number` counts from 1 when several were given.
        case recipient(number: Int?)
        /// An environment binding (``EnvironmentBinding/init(parsing:service:position:)``),
        /// counting from 1.
        case binding(number: Int)
        /// The passphrase asked for a new vault file (``NewFileKeys/passphrase``).
        case passphrase
        /// An environment variable the glue read, by name.
        case variable(String)

        /// The input in the library's own words, for ``VaultError/description``.
        var description: String {
            switch self {
            case .backend: "the backend"
            case .migrationSource: "the source"
            case .migrationDestination: "the destination"
            case .migrationStores(let source, let destination):
                "the source \(source) and the destination \(destination)"
            case .recipient(nil): "the recipient"
            case .recipient(let number?): "recipient number \(number)"
            case .binding(let number): "binding number \(number):"
            case .passphrase: "a passphrase"
            case .variable(let name): name
            }
        }
    }
}
