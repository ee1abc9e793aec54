import Testing
import VaultSecureBytes

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// Another process updates a secret in the fallback store while ``FallbackStore`` moves it: the
/// newer value must survive, in the fallback or in the primary store, and be what reads return.
@Suite("Fallback store, concurrent update")
struct FallbackConcurrentUpdateTests {
    /// A fallback file store whose first read of a secret is followed, at once, by another
    /// process's update of it (a second store object on the same file).
    class UpdatedAfterRead: SecretStore {
        let inner: FileStore
        let other: FileStore
        let update: SecretRecord
        private var updated = false

        init(_ inner: FileStore, other: FileStore, update: SecretRecord) {
            self.inner = inner
            self.other = other
            self.update = update
        }

        var label: String { inner.label }

        func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
            let record = try inner.read(name)
            if !updated {
                updated = true
                try other.write(update)
            }
            return record
        }

        func write(_ record: SecretRecord) throws(VaultError) { try inner.write(record) }
        func delete(_ name: SecretName) throws(VaultError) -> Bool { try inner.delete(name) }
        func list(service: String?) throws(VaultError) -> [SecretEntry] { try inner.list(service: service) }
    }

    /// The same, offering the file store's one-step compare-and-delete.
    final class UpdatedAfterReadBatch: UpdatedAfterRead, SecretBatchStore {
        func readAll(service: String?) throws(VaultError) -> [SecretRecord] { try inner.readAll(service: service) }
        func write(_ records: [SecretRecord]) throws(VaultError) { try inner.write(records) }
        func deleteUnchanged(_ records: [SecretRecord]) throws(VaultError) -> Set<SecretName> {
            try inner.deleteUnchanged(records)
        }
    }

    @Test("a value updated in the fallback during a move is not lost", arguments: [false, true])
    func updateDuringMove(batch: Bool) throws {
        let scratch = try ScratchFiles()
        let time = Timestamp(secondsSince1970: 1_700_000_000)
        let name = try SecretName(service: "vault", account: "token")
        let old = SecretRecord(name: name, value: [1], metadata: SecretMetadata(created: time, updated: time))
        var newer = old
        newer.value = SecureBytes([2])
        try scratch.store("fallback").write(old)
        let fallback =
            batch
            ? UpdatedAfterReadBatch(scratch.store("fallback"), other: scratch.store("fallback"), update: newer)
            : UpdatedAfterRead(scratch.store("fallback"), other: scratch.store("fallback"), update: newer)
        let store = FallbackStore(primary: scratch.store("primary"), fallback: fallback)

        #expect(try store.read(name)?.value == [2], "the read returned the value it replaced")
        let kept = [try scratch.store("primary").read(name), try scratch.store("fallback").read(name)]
        #expect(kept.contains { $0?.value == [2] }, "the newer value was lost: \(kept.map { $0?.value })")
        #expect(try scratch.store("fallback").read(name) == nil, "the moved secret stayed in the fallback")
        #expect(
            try FallbackStore(primary: scratch.store("primary"), fallback: scratch.store("fallback")).read(name)?.value
                == [2])
    }
}
