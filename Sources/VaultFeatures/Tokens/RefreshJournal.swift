import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A refresh's answer, kept in a private file from the moment it arrives until the store holds it.
///
/// A server that rotates refresh tokens invalidates the old one as it answers. If the store write
/// that follows fails (a keyring that does not answer in time, a full disk, a kill), the new
/// refresh token would exist nowhere but in the dying process and every later refresh would get
/// `invalid_grant`. So the answer is written first, durably, to a file of mode 0600 in a folder of
/// mode 0700 (``TokenSettings/journalDirectory``), named like the token's refresh lock; it is
/// removed once the store holds it. The next refresh of that token finds it under the lock and
/// stores it before deciding anything else. Only the holder of the token's ``RefreshLock`` reads,
/// writes or removes it.
///
/// The file is one JSON object: `{"replaces","created","updated","expires","token","companion"}`,
/// the companion in its stored form (``TokenCompanion/encoded()``) as a string.
struct RefreshJournal {
    let path: String

    init(directory: String, name: SecretName, store: any SecretStore) {
        path = "\(directory)/.vault-refresh-\(RefreshLock.key(name, store: store)).journal"
    }

    /// One refresh's outcome: the new token, its companion, and the token it replaced.
    struct Entry {
        /// the first 16 bytes of the SHA-256 (``Digest``) of the access token the refresh replaced. The entry
        /// applies only while the store still holds that token: once it holds another (this
        /// entry's, or one a later login or `set` stored), the entry is stale. A hash, not a
        /// time, because stores keep times to the second.
        var replaces: String
        var token: SecretRecord
        var companion: TokenCompanion
    }

    /// Writes `entry` durably (fsync of the file and its folder), replacing any older one; refuses
    /// a folder that is not the user's and private, and (as root) another user's file.
    func write(_ entry: Entry) throws(VaultError) {
        try FileSystem.writePrivate(entry.encoded(), to: path)
    }

    /// The entry the file holds; nil when there is none, or none vault can trust (see
    /// ``FileSystem/readOwnPrivate(_:limit:)``; its folder must be private too). A file that is vault's but not well-formed (a
    /// write cut short) is removed.
    func read(_ name: SecretName) -> Entry? {
        // A journal in a folder others own or may write to could have been put there by them.
        guard (try? FileSystem.checkPrivateDirectory(FileSystem.directory(of: path), holdingSecrets: true)) != nil
        else { return nil }
        // A token of the largest size with every byte escaped (six bytes each) fits.
        guard let bytes = FileSystem.readOwnPrivate(path, limit: 8 * Vault.maximumValueSize) else { return nil }
        guard let entry = Entry(decoding: bytes, name: name) else {
            remove()
            return nil
        }
        return entry
    }

    /// Whether a file is there (trusted or not): a refresh then takes the lease before deciding.
    var exists: Bool { access(path, F_OK) == 0 }

    /// Removes the file; one that cannot be removed is found stale later.
    func remove() {
        unlink(path)
    }
}

extension RefreshJournal.Entry {
    func encoded() -> SecureBytes {
        let companion = self.companion.encoded()
        var object = JSONObjectWriter(capacity: 256 + 6 * (token.value.count + companion.count))
        let metadata = token.metadata
        object.string("replaces", replaces.utf8)
        object.number("created", metadata.created.secondsSince1970)
        object.number("updated", metadata.updated.secondsSince1970)
        if let expires = metadata.expires { object.number("expires", expires.secondsSince1970) }
        token.value.withUnsafeBytes { object.string("token", $0) }
        object.string("companion", companion)
        return object.finish()
    }

    /// Reads the stored form back; nil if it is not well-formed.
    init?(decoding bytes: [UInt8], name: SecretName) {
        self.init(decoding: SecureBytes(bytes), name: name)
    }

    /// Reads the stored form back where it lies; the parsed tree's strings (the tokens) are
    /// zeroed after. nil if it is not well-formed.
    init?(decoding bytes: SecureBytes, name: SecretName) {
        guard let document = bytes.withUnsafeBytes({ try? JSONValue.parse($0) }) else { return nil }
        defer { document.wipeStrings() }
        guard case .object(let members) = document else { return nil }
        var fields: [String: JSONValue] = [:]
        for member in members { fields[member.key] = member.value }
        func seconds(_ key: String) -> Timestamp? {
            fields[key]?.integer.map { Timestamp(secondsSince1970: Int64($0)) }
        }
        guard let replaces = fields["replaces"]?.string, let created = seconds("created"),
            let updated = seconds("updated"), let token = fields["token"]?.stringBytes, !token.isEmpty,
            let stored = fields["companion"]?.stringBytes
        else { return nil }
        guard let companion = try? TokenCompanion(decoding: SecureBytes(stored), name: name), companion.canRefresh
        else {
            return nil
        }
        if fields["expires"] != nil, seconds("expires") == nil { return nil }
        self.init(
            replaces: replaces,
            token: SecretRecord(
                name: name, value: SecureBytes(token),
                metadata: SecretMetadata(created: created, updated: updated, expires: seconds("expires"))),
            companion: companion)
    }
}
