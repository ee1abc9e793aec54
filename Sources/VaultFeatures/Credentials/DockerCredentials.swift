public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// Registry credentials for the docker-credential-helpers protocol (`docker-credential-vault`),
/// as named vault secrets on any backend.
///
/// A credential is the secret `docker://USER@SERVER` in the service `docker` (USER
/// percent-encoded as for git), its value the registry secret (a password or an identity
/// token). SERVER is the server URL without its scheme and trailing `/`: clients send
/// `https://registry.example.com` and `registry.example.com` for the same registry. The server URL
/// exactly as stored is kept in the service `docker.server_url` under the same name, so that
/// `list` returns it as the client stored it (clients look up the keys `list` returns).
///
/// Errors are the reference helpers' (docker-credential-helpers `credentials`): a store without
/// a server URL or a username, or a get or erase without a server URL, is refused.
public struct DockerCredentials {
    public static let defaultService = "docker"
    /// The answer the clients (docker, containers/image) recognise as "no credential".
    public static let notFound = "credentials not found in native keychain"
    /// The reference helpers' words for a request without a server URL, and a store without a username.
    public static let missingServerURL = "no credentials server URL"
    public static let missingUsername = "no credentials username"

    let named: NamedGitCredentials

    public init(vault: Vault, service: String = defaultService) {
        named = NamedGitCredentials(vault: vault, service: service)
    }

    /// Where the server URL as stored is kept, under the credential's name.
    var serverURLService: String { named.service + ".server_url" }

    /// `https://host:5000/v1/` → `host:5000/v1`.
    static func server(_ serverURL: String) -> String {
        var text = Substring(serverURL)
        if let (_, rest) = NamedGitCredentials.splitScheme(text) { text = rest }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    static func query(_ serverURL: String) throws(VaultError) -> GitCredential {
        let server = server(serverURL)
        guard !server.isEmpty else { throw VaultError(.usage, missingServerURL) }
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
        let serverURL = String(decoding: url, as: UTF8.self)
        var credential = try Self.query(serverURL)
        guard !username.isEmpty else { throw VaultError(.usage, Self.missingUsername) }
        credential.username = String(decoding: username, as: UTF8.self)
        credential.password = SecureBytes(secret)
        var anyUser = credential
        anyUser.username = nil
        let replaced = try named.vault.list(service: named.service).filter {
            NamedGitCredentials.credential(account: $0.name.account).map { NamedGitCredentials.matches(anyUser, $0) }
                ?? false
        }
        // One credential per registry: the one stored last replaces another user's.
        try named.store(credential, replacingOtherUsers: true)
        let account = NamedGitCredentials.account(credential)
        for entry in replaced where entry.name.account != account {
            try named.vault.store.delete(try SecretName(service: serverURLService, account: entry.name.account))
        }
        try named.vault.set(
            try SecretName(service: serverURLService, account: account), value: SecureBytes(Array(serverURL.utf8)))
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
        let erased = try named.vault.list(service: named.service).filter {
            NamedGitCredentials.credential(account: $0.name.account).map { NamedGitCredentials.matches(query, $0) }
                ?? false
        }
        try named.erase(query)
        for entry in erased {
            try named.vault.store.delete(try SecretName(service: serverURLService, account: entry.name.account))
        }
        return true
    }

    /// `list`: a JSON object of server URL → username, each server URL as it was stored (one
    /// stored before vault kept it: without its scheme and final `/`).
    public func list() throws(VaultError) -> [UInt8] {
        var out = Array("{".utf8)
        for entry in try named.vault.list(service: named.service) {
            guard let credential = NamedGitCredentials.credential(account: entry.name.account),
                credential.protocolName == "docker", let host = credential.host
            else { continue }
            var server = host + (credential.path.map { "/" + $0 } ?? "")
            let kept = try named.vault.store.read(
                try SecretName(service: serverURLService, account: entry.name.account))
            // Only a URL that names this credential's registry: the record is data, like any other.
            if let kept, let stored = String(validating: Array(kept.value), as: UTF8.self),
                let query = try? Self.query(stored), NamedGitCredentials.matches(query, credential)
            {
                server = stored
            }
            if out.count > 1 { out += Array(",".utf8) }
            JSONString.append(server.utf8, to: &out)
            out += ":".utf8
            JSONString.append((credential.username ?? "").utf8, to: &out)
        }
        return out + Array("}\n".utf8)
    }
}
