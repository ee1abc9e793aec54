public import VaultStorage
import VaultSystem

/// The refresh lease of a living token, kept in the KV v2 mount beside the token
/// (docs/openbao.md, "Refresh leases"), and the check-and-set write of a companion that the
/// refresh under it makes.
///
/// The lease of `vault/<service>/<name>` is `vault/<service>/_vault64_lease/<name>`: inside the
/// folder every vault policy already grants, and at a path no secret name maps to (only an
/// escaped name starts with `_vault64_`, and an escaped name holds no `/`), so `ls`, `migrate`
/// and `export` never see it. Its data is `{"holder","site","expires"}` while held (`expires` in
/// milliseconds since the Unix epoch, as text) and `{"holder":""}` once released; every change is
/// a check-and-set write (`options.cas`) against the version read, so two machines never both
/// take it.
extension OpenBaoStore: SecretLeaseStore {
    /// The folder segment, below a service's folder, that holds its tokens' leases.
    static let leaseSegment = OpenBaoPath.escapePrefix + "lease"

    /// Where the lease of `name` lives, below the mount.
    static func leasePath(of name: SecretName) -> String {
        let folder = OpenBaoPath.folder(service: name.service)
        return folder + "/" + leaseSegment + "/" + OpenBaoPath.path(of: name).dropFirst(folder.utf8.count + 1)
    }

    public func readLease(_ name: SecretName) throws(VaultError) -> StoredRefreshLease {
        let answer = try client.send("GET", url("data", Self.leasePath(of: name)), deadline: client.deadline())
        // A lease deleted by hand (`bao kv delete`) answers 404 with the version it had.
        let version = answer.json?["data"]?["metadata"]?["version"]?.integer ?? 0
        if answer.status == 404 { return StoredRefreshLease(version: version, holder: nil) }
        guard answer.status == 200, let data = answer.json?["data"]?["data"] else {
            throw client.unexpected(answer, doing: "reading the refresh lease of \(name)")
        }
        guard let holder = data["holder"]?.string, !holder.isEmpty else {
            return StoredRefreshLease(version: version, holder: nil)
        }
        // A lease vault cannot read is treated as ended: the next holder replaces it with a
        // check-and-set write, as any ended lease.
        let expires = data["expires"]?.string.flatMap { Int64($0) } ?? 0
        return StoredRefreshLease(
            version: version,
            holder: RefreshLeaseHolder(holder: holder, site: data["site"]?.string ?? "", expires: expires))
    }

    public func writeLease(_ name: SecretName, _ holder: RefreshLeaseHolder?, ifVersion version: Int)
        throws(VaultError) -> Int?
    {
        var fields: [(String, String)] = [("holder", holder?.holder ?? "")]
        if let holder { fields += [("site", holder.site), ("expires", String(holder.expires))] }
        return try casWrite(
            Self.leasePath(of: name), data: JSONValue.object(strings: fields), version: version,
            doing: "writing the refresh lease of \(name)")
    }

    public func write(_ record: SecretRecord, ifVersion version: Int) throws(VaultError) -> Bool {
        let data = Self.dataObject(record.value, kind: record.metadata.kind)
        // The request's copies of the value are wiped once it is sent.
        defer { data.wipeStrings() }
        let written = try casWrite(
            OpenBaoPath.path(of: record.name), data: data, version: version, doing: "writing \(record.name)")
        return written != nil
    }

    /// A KV v2 write with `options.cas`: the new version, or nil when the secret is no longer at
    /// `version`. Sent to the active node, as every write.
    private func casWrite(_ path: String, data: JSONValue, version: Int, doing what: String) throws(VaultError)
        -> Int?
    {
        let deadline = client.deadline()
        client.preferActiveNode(deadline: deadline)
        let body = JSONValue.object([("options", .object([("cas", .number(String(version)))])), ("data", data)])
        let written = try client.send("POST", url("data", path), body: body, deadline: deadline)
        if written.status == 400, written.errors.contains("check-and-set") { return nil }
        guard written.isSuccess, let newVersion = written.json?["data"]?["version"]?.integer else {
            throw client.unexpected(written, doing: what)
        }
        return newVersion
    }
}
