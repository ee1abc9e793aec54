public import VaultAge

/// Registry credentials for the docker-credential-helpers protocol (`docker-credential-vault`),
/// as named vault secrets on any backend.
///
/// A credential is the secret `docker://USER@SERVER` in the service `docker` (USER
/// percent-encoded as for git), its value the registry secret (a password or an identity
/// token). SERVER is the server URL without its scheme and trailing `/`: clients send
/// `https://registry.example.com` and `registry.example.com` for the same registry.
public struct DockerCredentials {
    public static let defaultService = "docker"
    /// The answer the clients (docker, containers/image) recognise as "no credential".
    public static let notFound = "credentials not found in native keychain"

    let named: NamedGitCredentials

    public init(vault: Vault, service: String = defaultService) {
        named = NamedGitCredentials(vault: vault, service: service)
    }

    /// `https://host:5000/v1/` → `host:5000/v1`.
    static func server(_ serverURL: String) -> String {
        var text = Substring(serverURL)
        if let (_, rest) = NamedGitCredentials.splitScheme(text) { text = rest }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    static func query(_ serverURL: String) throws(VaultError) -> GitCredential {
        let server = server(serverURL)
        guard !server.isEmpty else { throw VaultError(.usage, "the server URL is empty") }
        let host = server.prefix { $0 != "/" }
        let path = server.dropFirst(host.count + 1)
        return GitCredential(protocolName: "docker", host: String(host), path: path.isEmpty ? nil : String(path))
    }

    /// `store`: the JSON object `{"ServerURL": ..., "Username": ..., "Secret": ...}`.
    public func store(json input: [UInt8]) throws(VaultError) {
        guard case .object(let members) = try JSONValue.parse(input) else {
            throw VaultError(.usage, "expected a JSON object with ServerURL, Username and Secret")
        }
        func field(_ key: String) -> [UInt8]? {
            guard case .string(let bytes)? = members.first(where: { $0.key == key })?.value else { return nil }
            return bytes
        }
        guard let url = field("ServerURL"), let username = field("Username"), let secret = field("Secret") else {
            throw VaultError(.usage, "expected a JSON object with the strings ServerURL, Username and Secret")
        }
        var credential = try Self.query(String(decoding: url, as: UTF8.self))
        credential.username = String(decoding: username, as: UTF8.self)
        credential.password = SecureBytes(secret)
        // One credential per registry: the one stored last replaces another user's.
        try named.store(credential, replacingOtherUsers: true)
    }

    /// `get`: the JSON answer for a server URL, or nil when there is no credential.
    public func get(serverURL: String) throws(VaultError) -> SecureBytes? {
        guard let found = try named.find(try Self.query(serverURL)) else { return nil }
        var out = SecureBytes("{\"ServerURL\":".utf8)
        JSONString.append(serverURL.utf8, to: &out)
        out += ",\"Username\":".utf8
        JSONString.append((found.username ?? "").utf8, to: &out)
        out += ",\"Secret\":".utf8
        JSONString.append(found.password ?? SecureBytes(), to: &out)
        out += "}\n".utf8
        return out
    }

    /// `erase`: false when there was no credential.
    public func erase(serverURL: String) throws(VaultError) -> Bool {
        let query = try Self.query(serverURL)
        guard try named.find(query) != nil else { return false }
        try named.erase(query)
        return true
    }

    /// `list`: a JSON object of server → username.
    public func list() throws(VaultError) -> [UInt8] {
        var out = Array("{".utf8)
        for entry in try named.vault.list(service: named.service) {
            guard let credential = NamedGitCredentials.credential(account: entry.name.account),
                credential.protocolName == "docker", let host = credential.host
            else { continue }
            let server = host + (credential.path.map { "/" + $0 } ?? "")
            if out.count > 1 { out += Array(",".utf8) }
            JSONString.append(server.utf8, to: &out)
            out += ":".utf8
            JSONString.append((credential.username ?? "").utf8, to: &out)
        }
        return out + Array("}\n".utf8)
    }
}
