public import VaultSecureBytes
public import VaultStorage

/// One credential in git's credential helper protocol (gitcredentials(7), git-credential(1)):
/// `key=value` lines ending at a blank line or the end of input.
///
/// The keys vault keeps are `protocol`, `host` (which may hold `:PORT`), `path`, `username`,
/// `password`, `password_expiry_utc` (Unix seconds), `oauth_refresh_token` and `ephemeral`. Every
/// other key is ignored, as git requires of helpers, so newer git versions can add keys.
public struct GitCredential: Sendable, Equatable {
    public var protocolName: String?
    public var host: String?
    public var path: String?
    public var username: String?
    /// The password, byte for byte (anything but a newline or a NUL byte).
    public var password: SecureBytes?
    /// When the password stops being valid, as git sends it: seconds since 1970, UTC.
    public var passwordExpiry: Int64?
    public var oauthRefreshToken: SecureBytes?
    /// git 2.46+ `ephemeral=1`: the credential is only good for a short while and must not be
    /// stored (git-credential-cache and git-credential-store skip it too).
    public var ephemeral = false

    public init(
        protocolName: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
        password: SecureBytes? = nil, passwordExpiry: Int64? = nil, oauthRefreshToken: SecureBytes? = nil
    ) {
        self.protocolName = protocolName
        self.host = host
        self.path = path
        self.username = username
        self.password = password
        self.passwordExpiry = passwordExpiry
        self.oauthRefreshToken = oauthRefreshToken
    }

    /// Reads the lines git writes to a helper. A line without `=` is a usage error. An empty
    /// value is kept: git tells `username=` (an empty user, as an SSO login stores) from no
    /// username at all (`credential.c` keeps it), and so do its own helpers.
    public static func parse(_ input: [UInt8]) throws(VaultError) -> GitCredential {
        var credential = GitCredential()
        for (index, line) in input.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw VaultError(.usage, "git credential line \(index + 1) has no '=' (expected key=value)")
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = line[(equals + 1)...]
            // Secrets go straight into secret bytes; only the other fields become strings.
            func text() -> String { String(decoding: value, as: UTF8.self) }
            switch key {
            case "protocol": credential.protocolName = text()
            case "host": credential.host = text()
            case "path": credential.path = text()
            case "username": credential.username = text()
            case "password": credential.password = SecureBytes(value)
            case "password_expiry_utc": credential.passwordExpiry = Int64(text())
            case "oauth_refresh_token": credential.oauthRefreshToken = SecureBytes(value)
            case "ephemeral": credential.ephemeral = isTrue(text())
            default: continue
            }
        }
        return credential
    }

    /// git's boolean spelling (`git config --type=bool`): true, yes, on or a non-zero number.
    static func isTrue(_ text: String) -> Bool {
        if ["true", "yes", "on"].contains(text.lowercased()) { return true }
        return Int64(text).map { $0 != 0 } ?? false
    }

    /// The answer to `get`: the fields a helper adds, as `key=value` lines.
    public func answer() -> SecureBytes {
        var out = SecureBytes()
        func line(_ key: String, _ value: some Collection<UInt8>) {
            out += key.utf8
            out.append(UInt8(ascii: "="))
            out += value
            out.append(0x0A)
        }
        if let username { line("username", username.utf8) }
        if let password { line("password", password) }
        if let passwordExpiry { line("password_expiry_utc", String(passwordExpiry).utf8) }
        if let oauthRefreshToken { line("oauth_refresh_token", oauthRefreshToken) }
        return out
    }

    /// Whether a stored credential `stored` answers this query: every field the query sets
    /// (protocol, host, path, username) is equal in `stored`; a field it leaves out matches anything.
    public func matches(_ stored: GitCredential) -> Bool {
        func same(_ wanted: String?, _ have: String?) -> Bool { wanted == nil || wanted == have }
        return same(protocolName, stored.protocolName) && same(host, stored.host) && same(path, stored.path)
            && same(username, stored.username)
    }

    /// The expiry as a vault time.
    var expires: Timestamp? { passwordExpiry.map { Timestamp(secondsSince1970: $0) } }
}

/// Where the git credential helper keeps credentials. A backend-specific implementation may
/// store them the way another program expects (``SecretServiceGitCredentials``).
public protocol GitCredentialStorage {
    /// The most recently stored credential matching `query` whose password has not expired, or nil.
    func find(_ query: GitCredential) throws(VaultError) -> GitCredential?
    /// Stores a credential with protocol, host, username and password, replacing the same one.
    func store(_ credential: GitCredential) throws(VaultError)
    /// Deletes the credentials matching `query` (and its password, if it has one).
    func erase(_ query: GitCredential) throws(VaultError)
}

extension GitCredentialStorage {
    /// Runs one helper operation: `get` returns the answer to print, the others nothing. A query
    /// without protocol and host gets no answer; a `store` lacking a username or password, or an
    /// `erase` with nothing to match on, is ignored, as git-credential-libsecret does; an
    /// ephemeral credential is never stored.
    public func perform(_ operation: String, _ credential: GitCredential) throws(VaultError) -> SecureBytes {
        switch operation {
        case "get":
            guard credential.protocolName != nil, credential.host != nil else { return SecureBytes() }
            return try find(credential)?.answer() ?? SecureBytes()
        case "store":
            guard credential.protocolName != nil, credential.host != nil, credential.username != nil,
                credential.password != nil, !credential.ephemeral
            else { return SecureBytes() }
            try store(credential)
        case "erase":
            guard
                credential.protocolName != nil || credential.host != nil || credential.path != nil
                    || credential.username != nil
            else { return SecureBytes() }
            try erase(credential)
        default:
            break  // git: "helpers should ignore unknown operations"
        }
        return SecureBytes()
    }
}

/// Chooses where git credentials go for a store.
public enum GitCredentials {
    /// On the Secret Service, items laid out as git-credential-libsecret's; elsewhere, named
    /// secrets in `service` (default `git`).
    public static func storage(for store: any SecretStore, service: String?) -> any GitCredentialStorage {
        if let native = store as? any GitCredentialLayoutStore { return native.gitCredentials }
        return NamedGitCredentials(vault: Vault(store: store), service: service ?? NamedGitCredentials.defaultService)
    }
}

/// A store where git credentials have a layout of their own, shared with another program (the
/// Secret Service's, with git-credential-libsecret), instead of named secrets.
protocol GitCredentialLayoutStore: SecretStore {
    var gitCredentials: any GitCredentialStorage { get }
}
