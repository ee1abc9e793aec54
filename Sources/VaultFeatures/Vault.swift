public import VaultSecureBytes
public import VaultStorage

/// The operations behind the `vault` commands, written once above the storage edge.
///
/// `Vault` decides metadata (creation and update times, expiry) and turns "absent" into the
/// right error for each command; the store only keeps what it is given.
public final class Vault {
    /// The store secrets are kept in.
    public let store: any SecretStore
    let now: () -> Timestamp
    /// How living tokens are refreshed; `nil` reads them as plain secrets.
    let tokens: TokenSettings?

    /// The largest value `set` accepts, in bytes (1 MiB).
    public static let maximumValueSize = 1 << 20

    public init(store: any SecretStore, now: @escaping () -> Timestamp = Timestamp.now, tokens: TokenSettings? = nil) {
        self.store = store
        self.now = now
        self.tokens = tokens
    }

    /// Stores a copy of `value`, as ``set(_:value:expires:)-(_,SecureBytes,_)`` does; the array
    /// stays the caller's to wipe.
    public func set(_ name: SecretName, value: [UInt8], expires: Timestamp? = nil) throws(VaultError) {
        try set(name, value: SecureBytes(value), expires: expires)
    }

    /// Stores a value, keeping the creation time of a secret that already exists. The secret is
    /// of `kind` (nil: a plain secret), whatever it was before.
    public func set(_ name: SecretName, value: SecureBytes, expires: Timestamp? = nil, kind: SecretKind? = nil)
        throws(VaultError)
    {
        try Self.checkSize(value.count)
        try Self.checkNotCompanion(name)
        let time = now()
        let existing = try store.replace(name, value: value) { existing in
            SecretMetadata(created: existing?.created ?? time, updated: time, expires: expires, kind: kind)
        }
        // Only a living token has a companion, and every living token expires.
        if existing?.expires != nil, let companion = try? TokenCompanion.name(for: name), try store.delete(companion) {
            forgetJournal(of: name)
        }
    }

    /// Returns a secret's value; throws `.notFound` if there is none, `.expired` if it has expired
    /// (unless `allowExpired`), and `.usage` if it is of a kind (``SecretKind``): a one-time code
    /// seed is never handed out as a value. A living token that is due is refreshed first (see
    /// ``refreshedIfDue(_:)``); `allowExpired` returns what is stored without refreshing.
    public func get(_ name: SecretName, allowExpired: Bool = false) throws(VaultError) -> SecretRecord {
        let record = try stored(name, allowExpired: allowExpired)
        if let kind = record.metadata.kind {
            guard kind.isOneTimeCode else {
                throw VaultError(
                    .usage, "'\(name.account)' is a secret of the kind '\(kind)', which this vault does not know")
            }
            throw VaultError(
                .usage, "'\(name.account)' holds a one-time code seed (\(kind)), which is not printed",
                remedy: .askForOneTimeCode(account: name.account))
        }
        return record
    }

    /// A secret as ``get(_:allowExpired:)`` finds it, whatever its kind.
    func stored(_ name: SecretName, allowExpired: Bool) throws(VaultError) -> SecretRecord {
        guard let record = try store.read(name) else { throw VaultError.notFound(name) }
        // A token just issued is current even if its lifetime is 0 (expires_in: 0).
        if !allowExpired, let refreshed = try refreshedIfDue(record) { return refreshed }
        if !allowExpired, let expires = record.metadata.expires, expires <= now() {
            throw VaultError(.expired, "'\(name.account)' expired at \(expires.rfc3339)", remedy: .allowExpired)
        }
        return record
    }

    /// Deletes a secret; throws `.notFound` if there is none.
    public func remove(_ name: SecretName) throws(VaultError) {
        // The companion goes first: a crash in between leaves a plain secret, never a companion
        // that a later secret of the same name would inherit.
        if !TokenCompanion.isCompanion(name), let companion = try? TokenCompanion.name(for: name) {
            if try store.delete(companion) { forgetJournal(of: name) }
        }
        guard try store.delete(name) else { throw VaultError.notFound(name) }
    }

    /// Lists one service's secrets (every service's when `service` is nil), sorted, without the
    /// companions of living tokens.
    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        try store.list(service: service).filter { !TokenCompanion.isCompanion($0.name) }
    }

    /// Checks a value's size against ``maximumValueSize``.
    public static func checkSize(_ count: Int) throws(VaultError) {
        if count > maximumValueSize {
            throw VaultError(
                .usage, "the value is \(count) bytes; the limit is \(maximumValueSize) bytes (1 MiB)")
        }
    }
}
