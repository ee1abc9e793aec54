import VaultStorage

/// A store named by the user: `file`, `file:PATH`, `secret-service` or `openbao`, in `vault migrate
/// --from/--to` and `VAULT_FALLBACK`. The form is `KIND[:ARGUMENT]`, so that kinds with
/// arguments can be added.
enum BackendSpec: Equatable {
    /// A vault file: the usual one (`--file`, `VAULT_FILE`, default) when `path` is nil.
    case file(path: String?)
    /// The desktop keyring through the Secret Service.
    case secretService
    /// The OpenBao (or HashiCorp Vault) KV v2 store named by `BAO_ADDR`.
    case openbao

    /// Parses a spec; `input` names where it came from, for the error.
    init(parsing text: String, from input: VaultError.Input) throws(VaultError) {
        let kind: Substring
        let argument: Substring?
        if let colon = text.firstIndex(of: ":") {
            kind = text[..<colon]
            argument = text[text.index(after: colon)...]
        } else {
            (kind, argument) = (Substring(text), nil)
        }
        let named = BackendKind(rawValue: String(kind))
        switch (named, argument) {
        case (.file, nil):
            self = .file(path: nil)
        case (.file, let path?):
            guard !path.isEmpty else {
                throw VaultError(.usage, "'file:' needs a path after the colon", input: input)
            }
            self = .file(path: String(path))
        case (let named?, nil) where named != .auto:
            self.init(named)
        case (let named?, _?) where named != .auto:
            throw VaultError(.usage, "'\(kind)' takes no ':' argument", input: input)
        default:
            throw VaultError(
                .usage, "is '\(text)'", input: input, remedy: .useOneOf(names: BackendKind.specFormsSpelledOut))
        }
    }

    /// The store of a resolved backend kind (the usual file for `file`; `auto` is resolved first).
    init(_ kind: BackendKind) {
        switch kind {
        case .secretService: self = .secretService
        case .openbao: self = .openbao
        case .file, .auto: self = .file(path: nil)
        }
    }
}
