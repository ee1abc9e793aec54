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

    /// Parses a spec; `origin` names where it came from, for the error message.
    init(parsing text: String, from origin: String) throws(VaultError) {
        let kind: Substring
        let argument: Substring?
        if let colon = text.firstIndex(of: ":") {
            kind = text[..<colon]
            argument = text[text.index(after: colon)...]
        } else {
            (kind, argument) = (Substring(text), nil)
        }
        switch (kind, argument) {
        case ("file", nil):
            self = .file(path: nil)
        case ("file", let path?):
            guard !path.isEmpty else { throw VaultError(.usage, "\(origin) 'file:' needs a path after the colon") }
            self = .file(path: String(path))
        case ("secret-service", nil):
            self = .secretService
        case ("openbao", nil):
            self = .openbao
        case ("secret-service", _?), ("openbao", _?):
            throw VaultError(.usage, "\(origin) '\(kind)' takes no ':' argument")
        default:
            throw VaultError(.usage, "\(origin) is '\(text)'; use file, file:PATH, secret-service or openbao")
        }
    }
}
