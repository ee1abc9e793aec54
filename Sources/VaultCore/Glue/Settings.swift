public import VaultAge

/// The command line's global options, before they are combined with the environment.
public struct GlobalOptions: Sendable, Equatable {
    public var backend: String?
    public var file: String?
    public var service: String?

    public init(backend: String? = nil, file: String? = nil, service: String? = nil) {
        self.backend = backend
        self.file = file
        self.service = service
    }
}

/// Which backend to use.
public enum BackendKind: String, Sendable, CaseIterable {
    case auto
    case file
    case secretService = "secret-service"
    case openbao

    /// Parses `auto`, `file`, `secret-service` or `openbao`; `input` names where it came from, for
    /// the error.
    public init(parsing text: String, from input: VaultError.Input) throws(VaultError) {
        guard let kind = BackendKind(rawValue: text) else {
            throw VaultError(.usage, "is '\(text)'; use auto, file, secret-service or openbao", input: input)
        }
        self = kind
    }
}

/// Asks the person at the terminal for a passphrase.
///
/// Supplied by the executable (the library never touches the terminal). Returns `nil` when there
/// is no terminal to ask on, so that nothing ever waits for input that cannot come.
public typealias PassphrasePrompt = @Sendable (_ message: String, _ confirm: Bool) throws(VaultError) -> SecureBytes?
