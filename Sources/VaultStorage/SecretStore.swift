public import VaultSecureBytes

/// The storage edge: the one protocol every backend implements.
///
/// It is deliberately small. Everything else (naming, encoding, expiry, migration) is written
/// once above it. A missing secret is `nil` or `false`, never an error; a store that cannot
/// answer (locked, unavailable, damaged) throws, and never reports such a failure as "absent".
public protocol SecretStore: AnyObject {
    /// A short, human-readable description of the store (`file /path`, `secret-service`).
    var label: String { get }

    /// What tells this store apart from others (``StoreIdentity``). The default is the label.
    var identity: StoreIdentity { get }

    /// Returns the secret with this name, or `nil` if there is none.
    func read(_ name: SecretName) throws(VaultError) -> SecretRecord?

    /// Creates the secret, or replaces the value and metadata of an existing one in place.
    ///
    /// A failure leaves any previous value untouched.
    func write(_ record: SecretRecord) throws(VaultError)

    /// Writes `value` as ``write(_:)`` does, with the metadata `metadata` makes from that of the
    /// secret it replaces (nil if there is none), and returns the replaced secret's metadata.
    ///
    /// What `vault set` does. The default reads the secret, then writes; a store that finds the
    /// old metadata without reading the old value (the Secret Service) does both in one step.
    func replace(
        _ name: SecretName, value: SecureBytes, metadata: (SecretMetadata?) -> SecretMetadata
    ) throws(VaultError) -> SecretMetadata?

    /// Deletes the secret. Returns `false` if there was none.
    @discardableResult
    func delete(_ name: SecretName) throws(VaultError) -> Bool

    /// Lists the secrets of one service, or of every service when `service` is `nil`,
    /// sorted by service then account.
    func list(service: String?) throws(VaultError) -> [SecretEntry]
}

extension SecretStore {
    public var identity: StoreIdentity { StoreIdentity(recordKey: label) }

    public func replace(
        _ name: SecretName, value: SecureBytes, metadata: (SecretMetadata?) -> SecretMetadata
    ) throws(VaultError) -> SecretMetadata? {
        let existing = try read(name)?.metadata
        try write(SecretRecord(name: name, value: value, metadata: metadata(existing)))
        return existing
    }
}
