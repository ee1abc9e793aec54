public import VaultStorage

/// Lazy migration: a store that keeps secrets in `primary` and still finds the ones left in
/// `fallback`, moving each into `primary` the first time it is read.
///
/// - `read` looks in the primary store; on a miss it reads the fallback and, if the secret is
///   there, writes it to the primary store, reads it back, compares, and only then deletes it
///   from the fallback, if it is unchanged there (a changed one is moved again). An interruption
///   leaves it in both stores, where the primary copy wins.
/// - `write` writes the primary store, then deletes the name from the fallback, so an old value
///   never reappears.
/// - `delete` deletes from both and reports whether either had it.
/// - `list` is the union of both, sorted, each name once (the primary store's entry wins).
///
/// Failures of either store are errors, never "absent": a fallback that cannot be read does not
/// hide a secret that may be in it.
public final class FallbackStore: SecretStore {
    /// Where secrets are kept.
    public let primary: any SecretStore
    /// Where secrets not yet moved are found.
    public let fallback: any SecretStore

    /// A store that keeps secrets in `primary` and moves them there from `fallback` when read.
    public init(primary: any SecretStore, fallback: any SecretStore) {
        self.primary = primary
        self.fallback = fallback
    }

    public var label: String { "\(primary.label) (falling back to \(fallback.label))" }

    /// The primary store's: where secrets, and refreshed tokens, are written.
    public var identity: StoreIdentity { primary.identity }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        if let record = try primary.read(name) { return record }
        guard var record = try fallback.read(name) else { return nil }
        // Someone may update the fallback while the secret is moved: it is deleted there only if
        // unchanged, and a changed one is moved again, so that the newer value is never lost.
        for _ in 0..<Self.movesPerRead {
            try primary.write(record)
            guard try primary.read(name) == record else {
                throw VaultError(
                    .damaged,
                    "\(primary.label) read back something else after '\(name)' was moved there from \(fallback.label); "
                        + "it was left in \(fallback.label)")
            }
            guard let changed = try deleteFromFallbackIfUnchanged(record) else { return record }
            record = changed
        }
        throw VaultError(
            .conflict, "'\(name)' kept changing in \(fallback.label) while it was moved; it was left there",
            remedy: .retry)
    }

    /// How often one read moves a secret that keeps changing in the fallback before giving up.
    static let movesPerRead = 3

    /// Deletes `record` from the fallback if it is still stored there with the same value and
    /// expiry, in one step where the store offers it; returns the fallback's newer version otherwise.
    private func deleteFromFallbackIfUnchanged(_ record: SecretRecord) throws(VaultError) -> SecretRecord? {
        if let batch = fallback as? any SecretBatchStore {
            if try batch.deleteUnchanged([record]).contains(record.name) { return nil }
            return try fallback.read(record.name)
        }
        // No compare-and-delete in this store: compare just before deleting.
        guard let current = try fallback.read(record.name) else { return nil }
        guard current.isSameSecret(as: record) else { return current }
        try fallback.delete(record.name)
        return nil
    }

    public func write(_ record: SecretRecord) throws(VaultError) {
        try primary.write(record)
        try fallback.delete(record.name)
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        let inPrimary = try primary.delete(name)
        let inFallback = try fallback.delete(name)
        return inPrimary || inFallback
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        var entries: [SecretName: SecretEntry] = [:]
        for entry in try fallback.list(service: service) { entries[entry.name] = entry }
        for entry in try primary.list(service: service) { entries[entry.name] = entry }
        return entries.values.sorted { $0.name < $1.name }
    }
}

/// Refreshed tokens, and a token's leases, are the primary store's.
extension FallbackStore: LayeredStore {
    package var writesTo: any SecretStore { primary }
}
