import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// Git credentials as ordinary vault secrets, on any backend.
///
/// A credential is the secret `PROTOCOL://USER@HOST[/PATH]` in the service `git` (USER with `%`,
/// `@`, `/` and `:` percent-encoded), so `vault ls --service git` lists them and `vault get
/// --service git https://alice@example.com` prints a password. Its value is the password and its
/// expiry `password_expiry_utc`. An `oauth_refresh_token` is the secret of the same name in the
/// service `git.oauth_refresh_token`.
///
/// A name is at most 255 bytes. When a long path (`credential.useHttpPath`) would make it longer,
/// the path is replaced by `#sha256=` and the hex SHA-256 of the path: a `#` never occurs in a
/// URL's path, so no path git sends is stored under that form by itself. A query for the long
/// path finds the credential under either form.
public struct NamedGitCredentials: GitCredentialStorage {
    public static let defaultService = "git"
    let vault: Vault
    let service: String

    public init(vault: Vault, service: String = defaultService) {
        self.vault = vault
        self.service = service
    }

    var refreshTokenService: String { service + ".oauth_refresh_token" }

    /// The secret's name for a credential with protocol, host and username.
    static func account(_ credential: GitCredential) -> String {
        var user = ""
        for character in credential.username ?? "" {
            switch character {
            case "%": user += "%25"
            case "@": user += "%40"
            case "/": user += "%2F"
            case ":": user += "%3A"
            default: user.append(character)
            }
        }
        let base = "\(credential.protocolName ?? "")://\(user)@\(credential.host ?? "")"
        guard let path = credential.path else { return base }
        let full = base + "/" + path
        return full.utf8.count <= SecretName.maximumByteCount ? full : base + "/" + digestPath(path)
    }

    /// The path a credential whose name would be too long is stored under.
    static func digestPath(_ path: String) -> String { "#sha256=" + Digest.hex(path) }

    /// Whether the stored credential answers `query`, its path compared as given or as its digest.
    static func matches(_ query: GitCredential, _ stored: GitCredential) -> Bool {
        if query.matches(stored) { return true }
        guard let path = query.path, stored.path == digestPath(path) else { return false }
        var withoutPath = query
        withoutPath.path = nil
        return withoutPath.matches(stored)
    }

    /// The credential a secret's name stands for, or nil for a name this helper did not make.
    static func credential(account: String) -> GitCredential? {
        guard let (scheme, rest) = splitScheme(Substring(account)) else { return nil }
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let path = rest.dropFirst(authority.count + 1)
        guard let user = SecretReference.percentDecoded(authority[..<at]) else { return nil }
        return GitCredential(
            protocolName: String(scheme), host: String(authority[authority.index(after: at)...]),
            // Every stored name has a username: an empty one is the empty user git sent.
            path: rest.count > authority.count ? String(path) : nil, username: user)
    }

    /// `PROTOCOL://REST` split at the first `://`, or nil if there is none.
    static func splitScheme(_ text: Substring) -> (scheme: Substring, rest: Substring)? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") {
                return (text[..<index], text[text.index(index, offsetBy: 3)...])
            }
            index = text.index(after: index)
        }
        return nil
    }

    private func name(_ credential: GitCredential, in service: String) throws(VaultError) -> SecretName {
        try SecretName(service: service, account: Self.account(credential))
    }

    /// The stored credentials matching `query`, most recently updated first.
    private func matching(_ query: GitCredential) throws(VaultError) -> [SecretEntry] {
        try vault.list(service: service)
            .filter { Self.credential(account: $0.name.account).map { Self.matches(query, $0) } ?? false }
            .sorted { $0.metadata.updated > $1.metadata.updated }
    }

    public func find(_ query: GitCredential) throws(VaultError) -> GitCredential? {
        for entry in try matching(query) where vault.expiryState(of: entry.metadata) != .expired {
            guard var found = Self.credential(account: entry.name.account) else { continue }
            let record: SecretRecord
            do throws(VaultError) {
                record = try vault.get(entry.name)
            } catch  where error.code == .notFound || error.code == .expired {
                continue
            }
            found.password = record.value
            found.passwordExpiry = record.metadata.expires?.secondsSince1970
            found.oauthRefreshToken = try vault.store.read(try name(found, in: refreshTokenService))?.value
            return found
        }
        return nil
    }

    public func store(_ credential: GitCredential) throws(VaultError) {
        try store(credential, replacingOtherUsers: false)
    }

    /// Stores a credential; with `replacingOtherUsers`, then deletes those of other users for the
    /// same protocol, host and path (the new one is written first, so a failure loses nothing).
    func store(_ credential: GitCredential, replacingOtherUsers: Bool) throws(VaultError) {
        let secretName = try name(credential, in: service)
        try vault.set(secretName, value: credential.password ?? SecureBytes(), expires: credential.expires)
        if replacingOtherUsers {
            var others = credential
            others.username = nil
            for entry in try matching(others) where entry.name != secretName {
                try vault.store.delete(entry.name)
                try vault.store.delete(try SecretName(service: refreshTokenService, account: entry.name.account))
            }
        }
        let tokenName = try name(credential, in: refreshTokenService)
        if let token = credential.oauthRefreshToken {
            try vault.set(tokenName, value: token)
        } else {
            try vault.store.delete(tokenName)
        }
    }

    public func erase(_ query: GitCredential) throws(VaultError) {
        for entry in try matching(query) {
            if let password = query.password, try vault.store.read(entry.name).map({ $0.value == password }) != true {
                continue
            }
            try vault.store.delete(entry.name)
            try vault.store.delete(try SecretName(service: refreshTokenService, account: entry.name.account))
        }
    }
}
