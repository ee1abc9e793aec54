package import VaultSecureBytes
package import VaultStorage
package import VaultSystem

/// How to reach an OpenBao (or HashiCorp Vault) server, as the glue read it from the
/// environment (`BAO_*`, else `VAULT_*`; docs/openbao.md).
package struct OpenBaoSettings: Sendable {
    /// Node addresses (`https://host:8200`), without a trailing `/`. Requests go to the first
    /// that answers; a redirect is followed only to one of these.
    var addresses: [String]
    package var credentials: OpenBaoCredentials
    /// The KV v2 mount (`secret`).
    var mount: String
    /// Seconds one command may spend talking to the servers (`VAULT_TIMEOUT`).
    package var timeout: Double
    var http: HTTPClient.Configuration

    /// The mount on the cluster: any of its addresses names it.
    package var identity: StoreIdentity {
        StoreIdentity(
            recordKey: "openbao " + addresses.sorted().joined(separator: " ") + " mount " + mount,
            aliases: Set(addresses.map { "openbao \($0) mount \(mount)" }))
    }

    package init(
        addresses: [String], credentials: OpenBaoCredentials, mount: String, timeout: Double,
        http: HTTPClient.Configuration
    ) {
        self.addresses = addresses
        self.credentials = credentials
        self.mount = mount
        self.timeout = timeout
        self.http = http
    }
}

/// Where the token comes from, in the order the glue looks (docs/openbao.md, "Logging in").
package enum OpenBaoCredentials: Sendable {
    /// A token given directly; `origin` names where (`BAO_TOKEN`, `~/.vault-token`) for messages.
    case token(SecureBytes, origin: String)
    /// AppRole login (`auth/<mount>/login`); the login token is cached (if `cachePrefix` is
    /// given) in `cachePrefix-<digest of the secret ID>` until shortly before it expires.
    case appRole(roleID: String, secretID: OpenBaoSecretID, mount: String, cachePrefix: String?)
    /// JWT login (`auth/<mount>/login` of a `jwt` auth method).
    case jwt(OpenBaoJWTLogin)

    /// How vault logs in, for `vault doctor`: never a secret.
    var method: String {
        switch self {
        case .token(_, let origin): "token from \(origin)"
        case .appRole(_, _, let mount, _): "AppRole login at auth/\(mount)"
        case .jwt(let login):
            "JWT login at auth/\(login.mount)\(login.role.map { " as role \($0)" } ?? "") with \(login.source.origin)"
        }
    }
}

/// The AppRole secret ID: given directly (`BAO_SECRET_ID`) or read from a file when needed.
package enum OpenBaoSecretID: Sendable {
    case value(String)
    case file(String)
}

/// A login to a `jwt` auth method: the workload proves who it is with a JWT its platform signed
/// (GitHub or Forgejo Actions, GitLab CI, Kubernetes), so no static secret is kept anywhere.
package struct OpenBaoJWTLogin: Sendable {
    /// The role (`BAO_JWT_ROLE`); nil lets the server use its `default_role`.
    var role: String?
    /// Where the method is mounted (`BAO_JWT_MOUNT`, default `jwt`).
    var mount: String
    var source: OpenBaoJWTSource
    /// The start of the token cache's file name (`$XDG_RUNTIME_DIR/vault/openbao-jwt-<server and
    /// role>`), or nil for no cache. The name ends with a digest of the JWT or of the Actions
    /// request token (``OpenBaoJWTSource/cacheKey()``), so a cached token serves only the holder
    /// of the same JWT: another job on the machine, whose claims the role might refuse, logs in
    /// with its own.
    var cachePrefix: String?

    package init(role: String? = nil, mount: String, source: OpenBaoJWTSource, cachePrefix: String? = nil) {
        self.role = role
        self.mount = mount
        self.source = source
        self.cachePrefix = cachePrefix
    }
}

/// Where the JWT comes from.
package enum OpenBaoJWTSource: Sendable {
    /// Given directly (`BAO_JWT`, named by `variable`).
    case value(SecureBytes, variable: String)
    /// A file read at each login (`BAO_JWT_FILE`): Kubernetes' service account token, which the
    /// kubelet rotates, or a GitLab CI `id_tokens` variable written to a file.
    case file(String, variable: String)
    /// Asked of the GitHub or Forgejo Actions id-token endpoint (`ACTIONS_ID_TOKEN_REQUEST_URL`,
    /// with `ACTIONS_ID_TOKEN_REQUEST_TOKEN` as a bearer credential) for `audience` (nil: the
    /// provider's default, on GitHub the owner's URL `https://github.com/OWNER`).
    case actions(requestURL: String, requestToken: SecureBytes, audience: String?)

    /// Where the JWT comes from, for messages: a variable, a path or an origin, never a secret
    /// nor the endpoint's path and query.
    var origin: String {
        switch self {
        case .value(_, let variable): variable
        case .file(let path, let variable): "\(variable) \(path)"
        case .actions(let url, _, _): "the Actions id token from \(HTTPURL.origin(of: url))"
        }
    }
}
