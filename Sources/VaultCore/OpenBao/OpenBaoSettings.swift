/// How to reach an OpenBao (or HashiCorp Vault) server, as the glue read it from the
/// environment (`BAO_*`, else `VAULT_*`; docs/openbao.md).
struct OpenBaoSettings: Sendable {
    /// Node addresses (`https://host:8200`), without a trailing `/`. Requests go to the first
    /// that answers; a redirect is followed only to one of these.
    var addresses: [String]
    var credentials: OpenBaoCredentials
    /// The KV v2 mount (`secret`).
    var mount: String
    /// Seconds one command may spend talking to the servers (`VAULT_TIMEOUT`).
    var timeout: Double
    var http: HTTPClient.Configuration
}

/// Where the token comes from.
enum OpenBaoCredentials: Sendable {
    /// A token given directly; `origin` names where (`BAO_TOKEN`, `~/.vault-token`) for messages.
    case token(String, origin: String)
    /// AppRole login (`auth/<mount>/login`); the login token is cached in `cacheFile` (if any)
    /// until shortly before it expires.
    case appRole(roleID: String, secretID: OpenBaoSecretID, mount: String, cacheFile: String?)
}

/// The AppRole secret ID: given directly (`BAO_SECRET_ID`) or read from a file when needed.
enum OpenBaoSecretID: Sendable {
    case value(String)
    case file(String)
}
