public import VaultSecretService
import VaultSecureBytes
public import VaultStorage

/// Git credentials in the Secret Service, stored and found the way git-credential-libsecret does,
/// so that a user can switch between it and vault in either direction.
///
/// Both of git's layouts use the attributes `user`, `server` (the host without its port),
/// `protocol`, `port` (when the host has one) and `object` (the path, when git sends one):
///
/// - git 2.39 (Debian 12) uses libsecret's compat schema `org.gnome.keyring.NetworkPassword`,
///   and the secret is the password;
/// - newer git uses `org.git.Password`; the secret's first line is the password and the
///   following lines are `password_expiry_utc=...` and `oauth_refresh_token=...`.
///
/// Both are read. A credential is written in the compat layout, which every git's helper reads,
/// unless it carries an expiry or a refresh token: only git 2.41 or newer sends those, and its
/// helper reads the `org.git.Password` layout that can hold them.
public struct SecretServiceGitCredentials: GitCredentialStorage {
    static let compatSchema = "org.gnome.keyring.NetworkPassword"
    static let gitSchema = "org.git.Password"
    static let keys = ["user", "server", "protocol", "port", "object"]

    let store: SecretServiceStore
    let now: () -> Timestamp

    public init(store: SecretServiceStore, now: @escaping () -> Timestamp = Timestamp.now) {
        self.store = store
        self.now = now
    }

    /// The attributes git-credential-libsecret gives a credential (or a query).
    static func attributes(_ credential: GitCredential) -> [String: String] {
        var attributes: [String: String] = [:]
        attributes["user"] = credential.username
        attributes["protocol"] = credential.protocolName
        attributes["object"] = credential.path
        if let host = credential.host {
            // libsecret's helper splits HOST:PORT (a numeric port) into server and port.
            if let colon = host.lastIndex(of: ":"), let port = UInt16(host[host.index(after: colon)...]) {
                attributes["server"] = String(host[..<colon])
                attributes["port"] = String(port)
            } else {
                attributes["server"] = host
            }
        }
        return attributes
    }

    /// The credential an item holds, in either layout.
    static func credential(_ item: AttributeItem) -> GitCredential {
        let attributes = item.attributes
        var host = attributes["server"]
        if let port = attributes["port"], host != nil { host! += ":" + port }
        var credential = GitCredential(
            protocolName: attributes["protocol"], host: host, path: attributes["object"], username: attributes["user"],
            password: SecureBytes(item.value))
        guard attributes[SecretServiceItems.schemaKey] == gitSchema else { return credential }
        let lines = item.value.split(separator: 0x0A, omittingEmptySubsequences: false)
        credential.password = SecureBytes(lines[0])
        for line in lines.dropFirst() {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("password_expiry_utc=") {
                credential.passwordExpiry = Int64(text.dropFirst("password_expiry_utc=".count))
            } else if line.starts(with: "oauth_refresh_token=".utf8) {
                credential.oauthRefreshToken = SecureBytes(line.dropFirst("oauth_refresh_token=".utf8.count))
            }
        }
        return credential
    }

    private static func what(_ credential: GitCredential) -> String {
        "the git credential for \(credential.protocolName ?? "?")://\(credential.host ?? "?")"
    }

    public func find(_ query: GitCredential) throws(VaultError) -> GitCredential? {
        let time = now().secondsSince1970
        for item in try store.items(matching: Self.attributes(query), what: Self.what(query)) {
            // Items of other programs may share attributes like `server`; a credential has these.
            guard item.attributes["protocol"] != nil, item.attributes["server"] != nil else { continue }
            let found = Self.credential(item)
            if let expiry = found.passwordExpiry, expiry <= time { continue }
            return found
        }
        return nil
    }

    public func store(_ credential: GitCredential) throws(VaultError) {
        var attributes = Self.attributes(credential)
        let keys = Set(attributes.keys)
        let modern = credential.passwordExpiry != nil || credential.oauthRefreshToken != nil
        var value = credential.password ?? SecureBytes()
        if modern {
            attributes[SecretServiceItems.schemaKey] = Self.gitSchema
            if let expiry = credential.passwordExpiry { value += "\npassword_expiry_utc=\(expiry)".utf8 }
            if let token = credential.oauthRefreshToken {
                value += "\noauth_refresh_token=".utf8
                value += token
            }
        } else {
            attributes[SecretServiceItems.schemaKey] = Self.compatSchema
        }
        let port = attributes["port"].map { ":" + $0 } ?? ""
        let label =
            "Git: \(credential.protocolName ?? "")://\(attributes["server"] ?? "")\(port)/\(credential.path ?? "")"
        try store.put(
            matching: Self.attributes(credential),
            // The same credential, not a more specific one (with a path when this has none).
            isSame: { Set($0.keys).intersection(Self.keys) == keys },
            attributes: attributes, label: label, value: value, what: Self.what(credential))
    }

    public func erase(_ query: GitCredential) throws(VaultError) {
        try store.delete(matching: Self.attributes(query), what: Self.what(query)) { item in
            guard item.attributes["protocol"] != nil, item.attributes["server"] != nil else { return false }
            return query.password.map { $0 == Self.credential(item).password } ?? true
        }
    }
}

extension SecretServiceStore: GitCredentialLayoutStore {
    var gitCredentials: any GitCredentialStorage { SecretServiceGitCredentials(store: self) }
}
