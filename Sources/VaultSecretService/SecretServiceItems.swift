import VaultSecureBytes
import VaultStorage

/// How vault's secrets map onto Secret Service items, without touching C.
///
/// An item is addressed by the attributes `service` and `username`, as python-keyring,
/// go-keyring (gh) and `secret-tool store ... service S username U` do, so each tool reads
/// what the others wrote. Vault's own metadata travels in extra attributes; other tools
/// search on a subset of attributes, so the extras do not hide vault's items from them.
package enum SecretServiceItems {
    static let serviceKey = "service"
    static let usernameKey = "username"
    package static let schemaKey = "xdg:schema"
    static let createdKey = "vault.created"
    static let updatedKey = "vault.updated"
    static let expiresKey = "vault.expires"
    /// The secret's ``SecretKind`` (`totp`, `hotp`); absent or empty for a plain secret.
    static let kindKey = "vault.kind"
    /// "true" on an item vault wrote with a value that is not empty: an item that says so and
    /// holds an empty value is one whose write never finished (see ``isHalfWritten(_:valueIsEmpty:)``).
    static let nonEmptyKey = "vault.nonempty"
    /// libsecret's generic schema: keyring's libsecret backend searches with it, so vault's
    /// items carry it; lookups by vault never require it.
    static let genericSchema = "org.freedesktop.Secret.Generic"
    static let vaultKeys: Set<String> = [createdKey, updatedKey, expiresKey, kindKey, nonEmptyKey]

    /// The attributes that find a secret, whatever tool wrote it.
    static func query(_ name: SecretName) -> [String: String] {
        [serviceKey: name.service, usernameKey: name.account]
    }

    /// The attributes that find every secret of a service, or every secret at all.
    static func query(service: String?) -> [String: String] {
        service.map { [serviceKey: $0] } ?? [:]
    }

    /// The attributes of a new item written by vault.
    static func attributes(for record: SecretRecord) -> [String: String] {
        merging(record, into: [schemaKey: genericSchema])
    }

    /// Attributes a provider computes for every item and never stores: KeePassXC's `Uuid` and
    /// `Path`. Some versions refuse a write that carries them (InvalidArgs), so vault never
    /// writes them back.
    static let providerComputedKeys: Set<String> = ["Uuid", "Path"]

    /// An existing item's attributes with the record's name and metadata put in.
    ///
    /// Providers disagree on what writing attributes means: GNOME Keyring and KWallet replace
    /// the whole set, KeePassXC sets the keys it is given and keeps the others. So the set
    /// written is what works for both: vault's attributes, `service` and `username`, and the
    /// other tools' attributes (`application`, `xdg:schema`, ...) as they were, without the ones
    /// a provider computes. An expiry that no longer applies is written empty (read as none),
    /// because leaving it out does not remove it on KeePassXC.
    static func merging(_ record: SecretRecord, into existing: [String: String]) -> [String: String] {
        var attributes = writable(existing).filter { !vaultKeys.contains($0.key) }
        attributes[serviceKey] = record.name.service
        attributes[usernameKey] = record.name.account
        attributes[createdKey] = record.metadata.created.rfc3339
        attributes[updatedKey] = record.metadata.updated.rfc3339
        if let expires = record.metadata.expires {
            attributes[expiresKey] = expires.rfc3339
        } else if existing[expiresKey] != nil {
            attributes[expiresKey] = ""
        }
        if let kind = record.metadata.kind {
            attributes[kindKey] = kind.rawValue
        } else if existing[kindKey] != nil {
            attributes[kindKey] = ""
        }
        if !record.value.isEmpty {
            attributes[nonEmptyKey] = "true"
        } else if existing[nonEmptyKey] != nil {
            attributes[nonEmptyKey] = ""
        }
        return attributes
    }

    /// Whether an item is what a write that never finished leaves: its attributes say vault
    /// wrote a value that is not empty, and its value is empty.
    ///
    /// KWallet's CreateItem stores the attributes, then decrypts the secret and stores it; when
    /// the decryption fails (the caller's session is gone because vault was killed, or the key
    /// exchange went wrong) it answers with an error and keeps the item, value empty. Such an
    /// item is absent to vault's reads, and a write fills it in place.
    static func isHalfWritten(_ attributes: [String: String], valueIsEmpty: Bool) -> Bool {
        valueIsEmpty && attributes[nonEmptyKey] == "true"
    }

    /// The attributes that put `old` back after `merging(record, into: old)` was written:
    /// vault's attributes that `old` did not have are written empty, for providers that keep
    /// keys left out.
    static func restoring(_ old: [String: String], over record: SecretRecord) -> [String: String] {
        var attributes = writable(old)
        for key in merging(record, into: old).keys where attributes[key] == nil { attributes[key] = "" }
        return attributes
    }

    private static func writable(_ attributes: [String: String]) -> [String: String] {
        attributes.filter { !providerComputedKeys.contains($0.key) }
    }

    /// The label shown by seahorse and `secret-tool search`.
    static func label(for name: SecretName) -> String {
        "vault: \(name.service)/\(name.account)"
    }

    /// `text/plain` for text, so libsecret's text API (and tools using it) can read it;
    /// `application/octet-stream` for values with NUL bytes or invalid UTF-8.
    static func contentType(for value: some Collection<UInt8>) -> String {
        let isText = !value.contains(0) && String(validating: value, as: UTF8.self) != nil
        return isText ? "text/plain" : "application/octet-stream"
    }

    /// The secret's name, if the item has both attributes and they make a valid name.
    /// Items of other tools may hold names vault cannot address; those are not listed.
    static func name(of attributes: [String: String]) -> SecretName? {
        guard let service = attributes[serviceKey], let account = attributes[usernameKey] else { return nil }
        return try? SecretName(service: service, account: account)
    }

    /// Metadata from vault's attributes, else from the item's own times (0 means unknown),
    /// else now.
    static func metadata(
        attributes: [String: String], created: UInt64, modified: UInt64, now: Timestamp
    ) -> SecretMetadata {
        let itemCreated = created > 0 ? Timestamp(secondsSince1970: Int64(clamping: created)) : nil
        let itemModified = modified > 0 ? Timestamp(secondsSince1970: Int64(clamping: modified)) : nil
        let createdAt = attributes[createdKey].flatMap(Timestamp.init(rfc3339:)) ?? itemCreated ?? now
        let updatedAt = attributes[updatedKey].flatMap(Timestamp.init(rfc3339:)) ?? itemModified ?? createdAt
        let expires = attributes[expiresKey].flatMap(Timestamp.init(rfc3339:))
        let kind = attributes[kindKey].flatMap(SecretKind.init(rawValue:))
        return SecretMetadata(created: createdAt, updated: updatedAt, expires: expires, kind: kind)
    }

    /// The record that the items found for `name` hold: the preferred unlocked item's (its secret
    /// read by `secret`), passing over any whose write never finished; nil when no unlocked item
    /// holds one. Both ways of reading (libsecret's and the direct read) choose with this.
    static func record<Failure: Error>(
        _ name: SecretName, in items: [SecretServiceFoundItem],
        secret: (SecretServiceFoundItem) throws(Failure) -> SecureBytes
    ) throws(Failure) -> SecretRecord? {
        var candidates = items
        while let index = preferred(candidates.map(\.candidate)) {
            let item = candidates.remove(at: index)
            let value = try secret(item)
            if isHalfWritten(item.attributes, valueIsEmpty: value.isEmpty) { continue }
            let metadata = metadata(
                attributes: item.attributes, created: item.created, modified: item.modified, now: .now())
            return SecretRecord(name: name, value: value, metadata: metadata)
        }
        return nil
    }

    /// Which of several matching items is "the" secret: an unlocked one, most recently
    /// modified first (a write touches the one it updates, so it stays the one read back).
    /// Returns `nil` if every candidate is locked.
    static func preferred(_ candidates: [Candidate]) -> Int? {
        candidates.indices
            .filter { !candidates[$0].locked }
            .max {
                (candidates[$0].modified, candidates[$0].created) < (candidates[$1].modified, candidates[$1].created)
            }
    }

    /// What `preferred` needs to know of an item.
    struct Candidate: Sendable {
        var locked: Bool
        var created: UInt64
        var modified: UInt64
    }
}
