import FoundationEssentials
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// Secrets in a KV v2 mount of OpenBao or HashiCorp Vault (docs/openbao.md).
///
/// A secret is `<mount>/data/vault/<service>/<name>` (``OpenBaoPath``). Its data holds `value`
/// (UTF-8 text without NUL) or `value_base64` (any other bytes); `custom_metadata` holds
/// `vault_created`, `vault_updated`, `vault_version`, `vault_expires` and `vault_kind`; a secret of a
/// kind (``SecretKind``) also has `vault_kind` in its data, which is what a read goes by. Writes use check-and-set, so two writers never
/// lose an update silently. `delete` removes the metadata and every version.
public final class OpenBaoStore: SecretStore {
    let client: OpenBaoClient
    /// Runs between a write's version check and the write itself: tests make a competing
    /// writer there.
    var beforeWrite: (() -> Void)?

    package init(settings: OpenBaoSettings) {
        client = OpenBaoClient(settings: settings)
    }

    public var label: String { "openbao \(client.serverList)" }

    public var identity: StoreIdentity { client.settings.identity }

    var mount: String {
        client.settings.mount.split(separator: "/").map { HTTPForm.pathSegment(String($0)) }.joined(separator: "/")
    }

    func url(_ kind: String, _ path: String) -> String {
        mount + "/" + kind + "/"
            + path.split(separator: "/", omittingEmptySubsequences: false)
            .map { HTTPForm.pathSegment(String($0)) }.joined(separator: "/")
    }

    // MARK: SecretStore

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        try readVersioned(name)?.record
    }

    /// The secret and its KV version (for a check-and-set write), in one request.
    public func readVersioned(_ name: SecretName) throws(VaultError) -> (record: SecretRecord, version: Int)? {
        let answer = try client.send("GET", url("data", OpenBaoPath.path(of: name)), deadline: client.deadline())
        // The parsed answer's strings hold the value: zeroed once the record has its own copy
        // (the response body is zeroed with the response, docs/design.md "Secrets in memory").
        defer { answer.json?.wipeStrings() }
        if answer.status == 404 { return nil }
        guard answer.status == 200, let data = answer.json?["data"] else {
            throw client.unexpected(answer, doing: "reading \(name)")
        }
        var times = Self.times(
            custom: data["metadata"]?["custom_metadata"], version: data["metadata"]?["version"]?.integer ?? 0,
            versionCreated: data["metadata"]?["created_time"])
        // The version's own kind: a later version another tool wrote is a plain value.
        times.kind = data["data"]?["vault_kind"]?.string.flatMap(SecretKind.init(rawValue:))
        let value: SecureBytes
        if let text = data["data"]?["value"]?.stringBytes {
            value = SecureBytes(text)
        } else if let encoded = data["data"]?["value_base64"]?.stringBytes {
            guard let decoded = Self.decodeBase64(encoded) else {
                throw VaultError(.damaged, "\(name) on \(answer.server) has a value_base64 that is not base64")
            }
            value = decoded
        } else {
            throw VaultError(
                .damaged,
                "\(name) on \(answer.server) has neither 'value' nor 'value_base64'; write it with a value field")
        }
        return (SecretRecord(name: name, value: value, metadata: times), data["metadata"]?["version"]?.integer ?? 0)
    }

    /// The bytes of `value_base64`, straight into secret bytes; padded base64 that is not
    /// canonical (another tool's) through Foundation, whose copy is zeroed.
    static func decodeBase64(_ encoded: [UInt8]) -> SecureBytes? {
        var arena = SecureBytes.Arena(bufferSize: 0)
        if let decoded = encoded.withUnsafeBytes({ arena.decodingBase64($0) }) { return decoded }
        var text = Data(encoded)
        defer { text.withUnsafeMutableBytes { zeroSecret($0) } }
        guard var data = Data(base64Encoded: text) else { return nil }
        defer { data.withUnsafeMutableBytes { zeroSecret($0) } }
        return data.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// A secret's times: vault's own (custom metadata) when vault wrote the current version, else
    /// the server's; the expiry whoever wrote the version.
    static func times(custom: JSONValue?, version: Int, versionCreated: JSONValue?) -> SecretMetadata {
        let time = { (value: JSONValue?) in value?.string.flatMap { Timestamp(rfc3339: $0) } }
        let serverTime = time(versionCreated) ?? .now()
        let ours = custom?["vault_version"]?.string == String(version)
        let updated = ours ? time(custom?["vault_updated"]) ?? serverTime : serverTime
        return SecretMetadata(
            created: time(custom?["vault_created"]) ?? updated, updated: updated,
            expires: time(custom?["vault_expires"]),
            kind: custom?["vault_kind"]?.string.flatMap(SecretKind.init(rawValue:)))
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        let path = OpenBaoPath.path(of: name)
        let deadline = client.deadline()
        client.preferActiveNode(deadline: deadline)
        guard let current = try metadata(path, deadline: deadline) else { return false }
        let answer = try client.send("DELETE", url("metadata", path), deadline: deadline)
        guard answer.isSuccess else { throw client.unexpected(answer, doing: "deleting \(name)") }
        return !current.deleted
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        let deadline = client.deadline()
        if let scanned = try scan(service: service, deadline: deadline) {
            return scanned.sorted { $0.name < $1.name }
        }
        var services: [String]
        if let service {
            services = [service]
        } else {
            services = try keys(OpenBaoPath.root, deadline: deadline).filter { $0.hasSuffix("/") }
                .compactMap { OpenBaoPath.service(segment: String($0.dropLast())) }
        }
        var entries: [SecretEntry] = []
        for service in services {
            let folder = OpenBaoPath.folder(service: service)
            for key in try secretKeys(folder, deadline: deadline) {
                guard let name = OpenBaoPath.name(service: service, key: key),
                    let meta = try metadata(folder + "/" + key, deadline: deadline), !meta.deleted
                else { continue }
                entries.append(SecretEntry(name: name, metadata: meta.times))
            }
        }
        return entries.sorted { $0.name < $1.name }
    }

    // MARK: Metadata and listing

    /// What the metadata endpoint says about a secret.
    struct Metadata {
        var version: Int
        var times: SecretMetadata
        /// Whether the current version is deleted or destroyed (`bao kv delete`): vault treats
        /// the secret as absent.
        var deleted: Bool
    }

    func metadata(_ path: String, deadline: Deadline) throws(VaultError) -> Metadata? {
        let answer = try client.send("GET", url("metadata", path), deadline: deadline)
        if answer.status == 404 { return nil }
        guard answer.status == 200, let data = answer.json?["data"] else {
            throw client.unexpected(answer, doing: "reading the metadata of \(path)")
        }
        return Self.metadata(data)
    }

    /// The metadata endpoint's `data` (or one `key_info` entry of a detailed listing).
    static func metadata(_ data: JSONValue) -> Metadata {
        let version = data["current_version"]?.integer ?? 0
        let current = data["versions"]?[String(version)]
        let deletion = current?["deletion_time"]?.string ?? ""
        let destroyed = current?["destroyed"]?.bool ?? false
        return Metadata(
            version: version,
            times: Self.times(
                custom: data["custom_metadata"], version: version, versionCreated: current?["created_time"]),
            deleted: !deletion.isEmpty || destroyed || version == 0)
    }

    /// Every secret of `service` (of every service when nil) with its metadata, in one request:
    /// OpenBao's `SCAN <mount>/detailed-metadata/<folder>` lists a folder recursively with each
    /// key's metadata. nil when the server does not offer it (HashiCorp Vault, OpenBao before
    /// 2.1) or the token's policy does not grant `scan` there: the caller then lists the folders
    /// and reads each secret's metadata, one request per secret.
    func scan(service: String?, deadline: Deadline) throws(VaultError) -> [SecretEntry]? {
        let folder = service.map(OpenBaoPath.folder(service:)) ?? OpenBaoPath.root
        let answer = try client.send(
            "GET", url("detailed-metadata", folder) + "/?scan=true", refusalIsAnswer: true, deadline: deadline)
        // A folder with nothing in it answers without keys.
        guard answer.status == 200, let data = answer.json?["data"] else { return nil }
        guard case .array(let keys)? = data["keys"], case .object(let infos)? = data["key_info"] else { return [] }
        let info = Dictionary(infos.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        var entries: [SecretEntry] = []
        for case .string(let bytes) in keys {
            let key = String(decoding: bytes, as: UTF8.self)
            guard let found = info[key] else { continue }
            let name: SecretName?
            if let service {
                name = OpenBaoPath.name(service: service, key: key)
            } else {
                let parts = key.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
                name =
                    parts.count == 2
                    ? OpenBaoPath.service(segment: String(parts[0])).flatMap {
                        OpenBaoPath.name(service: $0, key: String(parts[1]))
                    } : nil
            }
            let meta = Self.metadata(found)
            guard let name, !meta.deleted else { continue }
            entries.append(SecretEntry(name: name, metadata: meta.times))
        }
        return entries
    }

    /// The keys of a folder (`LIST <mount>/metadata/<folder>/`): names, and folders ending in `/`.
    private func keys(_ folder: String, deadline: Deadline) throws(VaultError) -> [String] {
        let answer = try client.send("GET", url("metadata", folder) + "/?list=true", deadline: deadline)
        if answer.status == 404 { return [] }
        guard answer.status == 200, case .array(let items)? = answer.json?["data"]?["keys"] else {
            throw client.unexpected(answer, doing: "listing \(folder)")
        }
        return items.compactMap(\.string)
    }

    /// Every secret below a folder, recursively, as paths relative to it.
    private func secretKeys(_ folder: String, deadline: Deadline) throws(VaultError) -> [String] {
        var found: [String] = []
        for key in try keys(folder, deadline: deadline) {
            if key.hasSuffix("/") {
                found += try secretKeys(folder + "/" + key.dropLast(), deadline: deadline).map { key + $0 }
            } else {
                found.append(key)
            }
        }
        return found
    }
}

extension OpenBaoClient.Answer {
    var isSuccess: Bool { (200..<300).contains(status) }
}
