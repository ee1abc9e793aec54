/// The operations behind the `vault` commands, written once above the storage edge.
///
/// `Vault` decides metadata (creation and update times, expiry) and turns "absent" into the
/// right error for each command; the store only keeps what it is given.
public final class Vault {
    /// The store secrets are kept in.
    public let store: any SecretStore
    let now: () -> Timestamp

    /// The largest value `set` accepts, in bytes (1 MiB).
    public static let maximumValueSize = 1 << 20

    public init(store: any SecretStore, now: @escaping () -> Timestamp = Timestamp.now) {
        self.store = store
        self.now = now
    }

    /// Stores a value, keeping the creation time of a secret that already exists.
    public func set(_ name: SecretName, value: [UInt8], expires: Timestamp? = nil) throws(VaultError) {
        try Self.checkSize(value.count)
        let time = now()
        let created = try store.read(name)?.metadata.created ?? time
        try store.write(
            SecretRecord(
                name: name, value: value, metadata: SecretMetadata(created: created, updated: time, expires: expires)))
    }

    /// Returns a secret; throws `.notFound` if there is none and `.expired` if it has expired
    /// (unless `allowExpired`).
    public func get(_ name: SecretName, allowExpired: Bool = false) throws(VaultError) -> SecretRecord {
        guard let record = try store.read(name) else { throw VaultError.notFound(name) }
        if !allowExpired, let expires = record.metadata.expires, expires <= now() {
            throw VaultError(
                .expired, "'\(name.account)' expired at \(expires.rfc3339); set a new value, or use --allow-expired")
        }
        return record
    }

    /// Deletes a secret; throws `.notFound` if there is none.
    public func remove(_ name: SecretName) throws(VaultError) {
        guard try store.delete(name) else { throw VaultError.notFound(name) }
    }

    /// Lists one service's secrets (every service's when `service` is nil), sorted.
    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        try store.list(service: service)
    }

    /// Checks a value's size against ``maximumValueSize``.
    public static func checkSize(_ count: Int) throws(VaultError) {
        if count > maximumValueSize {
            throw VaultError(
                .usage, "the value is \(count) bytes; the limit is \(maximumValueSize) bytes (1 MiB)")
        }
    }
}
