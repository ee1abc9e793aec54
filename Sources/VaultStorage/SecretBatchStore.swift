/// A store that can also read, write and delete many secrets in one step.
///
/// Not part of ``SecretStore``: a backend offers it when one step is much cheaper than many, as
/// for the file store, where every single write is a full locked rewrite of the file. Migration
/// uses it when a store has it and the single-secret operations otherwise.
public protocol SecretBatchStore: SecretStore {
    /// Returns every secret of one service, or of every service when `service` is `nil`,
    /// values included, sorted by service then account.
    func readAll(service: String?) throws(VaultError) -> [SecretRecord]

    /// Creates or replaces all `records` in one step: afterwards all of them are stored, or,
    /// if it throws, none of them was written.
    func write(_ records: [SecretRecord]) throws(VaultError)

    /// Deletes, in one step, each of `records` that is still stored with the same value and
    /// expiry (see ``SecretRecord/isSameSecret(as:)``); leaves any that changed since they were
    /// read. Returns the names it deleted.
    func deleteUnchanged(_ records: [SecretRecord]) throws(VaultError) -> Set<SecretName>
}
