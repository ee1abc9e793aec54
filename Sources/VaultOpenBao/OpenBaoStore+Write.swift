import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// Writing a secret: all or nothing, and once.
///
/// A write is a check-and-set data write followed by a merge-patch of the metadata (vault's
/// times and the expiry, docs/openbao.md "Layout"). Two things could leave it half done:
/// - a policy that allows the data write and not the metadata patch: the value would change and
///   the command fail. The token's capabilities on both paths are asked first
///   (`sys/capabilities-self`, which the default policy grants), and a missing one fails the
///   command before anything is written;
/// - a failover: the data write is sent again on another node when its first attempt's outcome
///   is unknown, and libcurl itself sends a request again, silently, when the kept-alive
///   connection it was sent on turns out to be closed with no answer. Check-and-set keeps a
///   second attempt from writing twice, but the first may have landed: so a failed check reads
///   the current version, and the write is this one's when that is the version the check asked
///   for and it holds exactly what was sent. (Another writer that wrote the same bytes at that
///   version lost nothing to this one.)
extension OpenBaoStore {
    public func write(_ record: SecretRecord) throws(VaultError) {
        let path = OpenBaoPath.path(of: record.name)
        let deadline = client.deadline()
        client.preferActiveNode(deadline: deadline)
        let current = try metadata(path, deadline: deadline)
        try requireCapabilities(path, exists: current != nil, name: record.name, deadline: deadline)
        beforeWrite?()
        let data = Self.dataObject(record.value, kind: record.metadata.kind)
        // The request's copies of the value are wiped once it is sent.
        defer { data.wipeStrings() }
        let cas = current?.version ?? 0
        let body = JSONValue.object([("options", .object([("cas", .number(String(cas)))])), ("data", data)])
        let written = try client.send("POST", url("data", path), body: body, resendable: true, deadline: deadline)
        let version: Int
        if written.status == 400, written.errors.contains("check-and-set") {
            guard try isCurrent(cas + 1, of: path, holding: data, deadline: deadline) else {
                throw VaultError(
                    .conflict,
                    "\(record.name) changed on \(written.server) while it was being written", remedy: .retry)
            }
            version = cas + 1
        } else {
            guard written.isSuccess, let made = written.json?["data"]?["version"]?.integer else {
                throw client.unexpected(written, doing: "writing \(record.name)")
            }
            version = made
        }
        // vault's own times and the expiry, tied to the version written: a later version written
        // by another tool reads with the server's time as its update time.
        let stamp = { (time: Timestamp) in JSONValue.string(Array(time.rfc3339.utf8)) }
        let custom = JSONValue.object([
            ("vault_created", stamp(record.metadata.created)),
            ("vault_updated", stamp(record.metadata.updated)),
            ("vault_version", .string(Array(String(version).utf8))),
            ("vault_expires", record.metadata.expires.map(stamp) ?? .null),
            ("vault_kind", record.metadata.kind.map { .string(Array($0.rawValue.utf8)) } ?? .null),
        ])
        let patched = try client.send(
            "PATCH", url("metadata", path), body: .object([("custom_metadata", custom)]),
            contentType: "application/merge-patch+json", deadline: deadline)
        guard patched.isSuccess else {
            throw client.unexpected(patched, doing: "writing the metadata of \(record.name)")
        }
    }

    /// The data object of a version: `value` for UTF-8 text without NUL, else `value_base64`;
    /// then `vault_kind` for a secret of a kind (``SecretKind``), which travels with its version.
    static func dataObject(_ value: SecureBytes, kind: SecretKind?) -> JSONValue {
        let kindField = kind.map { [("vault_kind", JSONValue.string(Array($0.rawValue.utf8)))] } ?? []
        if value.isText { return .object([("value", .string(value.unprotectedArray))] + kindField) }
        var encoded = SecureBytes()
        encoded.appendBase64(of: value)
        return .object([("value_base64", .string(encoded.unprotectedArray))] + kindField)
    }

    /// Whether the secret at `path` is at `version` and holds exactly `data`.
    private func isCurrent(_ version: Int, of path: String, holding data: JSONValue, deadline: Deadline)
        throws(VaultError) -> Bool
    {
        let answer = try client.send("GET", url("data", path), deadline: deadline)
        defer { answer.json?.wipeStrings() }
        guard answer.status == 200, let current = answer.json?["data"],
            current["metadata"]?["version"]?.integer == version, let stored = current["data"]
        else { return false }
        return stored == data
    }

    /// Fails, naming the capability and the path, unless the token may write both the data and
    /// the metadata of the secret at `path`. A token that cannot ask (no default policy) goes on:
    /// the write itself then says what it was refused.
    private func requireCapabilities(_ path: String, exists: Bool, name: SecretName, deadline: Deadline)
        throws(VaultError)
    {
        let mountPath = client.settings.mount.split(separator: "/").joined(separator: "/")
        let needed = [
            (mountPath + "/data/" + path, exists ? "update" : "create"), (mountPath + "/metadata/" + path, "patch"),
        ]
        let body = JSONValue.object([("paths", .array(needed.map { .string(Array($0.0.utf8)) }))])
        let answer = try client.send(
            "POST", "sys/capabilities-self", body: body, refusalIsAnswer: true, resendable: true, deadline: deadline)
        guard answer.status == 200 else { return }
        for (path, capability) in needed {
            // The capabilities are at the top level and, in newer servers, under `data` too.
            guard case .array(let granted)? = answer.json?["data"]?[path] ?? answer.json?[path] else { continue }
            let names = granted.compactMap(\.string)
            guard !names.contains("root"), !names.contains(capability) else { continue }
            throw VaultError(
                .cannotUnlock,
                "the token's policy on \(answer.server) does not grant '\(capability)' on \(path), which writing \(name) needs (vault keeps the secret's times and expiry in its metadata); nothing was written (docs/openbao.md)"
            )
        }
    }
}
