import Testing
import VaultAge
import VaultSecureBytes

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// Lazy migration through ``FallbackStore``, over real stores.
@Suite("Fallback store")
struct FallbackStoreTests {
    enum Pair: String, Sendable, CaseIterable {
        case files = "file over file"
        case keyringOverFile = "secret-service over file"
        case fileOverKeyring = "file over secret-service"
    }

    /// A primary and a fallback store for a pair, opened afresh on each call.
    typealias Stores = StorePair

    @Test("a read that misses moves the secret from the fallback, byte for byte", arguments: Pair.allCases)
    func readMoves(pair: Pair) throws {
        let stores = try Stores(pair)
        defer { stores.cleanUp() }
        let old = try stores.record("old", [0, 1, 0xFF, 0] + (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0) })
        try stores.fallback().write(old)

        #expect(try stores.store().read(old.name) == old)
        #expect(try stores.primary().read(old.name) == old)
        #expect(try stores.fallback().read(old.name) == nil)
        #expect(try stores.store().read(old.name) == old)
        #expect(try stores.store().read(try stores.record("absent", []).name) == nil)
    }

    @Test("the primary store wins; a write removes the name from the fallback", arguments: Pair.allCases)
    func writeRemovesFromFallback(pair: Pair) throws {
        let stores = try Stores(pair)
        defer { stores.cleanUp() }
        let stale = try stores.record("token", Array("stale".utf8))
        var fresh = stale
        fresh.value = SecureBytes("fresh".utf8)
        try stores.fallback().write(stale)
        try stores.primary().write(fresh)
        #expect(try stores.store().read(fresh.name) == fresh)
        #expect(try stores.fallback().read(stale.name) == stale)

        var newer = fresh
        newer.value = SecureBytes("newer".utf8)
        try stores.store().write(newer)
        #expect(try stores.primary().read(newer.name) == newer)
        #expect(try stores.fallback().read(newer.name) == nil)
    }

    @Test("delete removes from both and is false only when neither had it", arguments: Pair.allCases)
    func deleteBoth(pair: Pair) throws {
        let stores = try Stores(pair)
        defer { stores.cleanUp() }
        let both = try stores.record("both", [1])
        let onlyOld = try stores.record("only-old", [2])
        try Samples.write([both, onlyOld], to: try stores.fallback())
        try stores.primary().write(both)
        #expect(try stores.store().delete(both.name))
        #expect(try stores.primary().read(both.name) == nil)
        #expect(try stores.fallback().read(both.name) == nil)
        #expect(try stores.store().delete(onlyOld.name))
        #expect(try stores.fallback().read(onlyOld.name) == nil)
        #expect(try stores.store().delete(onlyOld.name) == false)
    }

    @Test("list is the union of both stores, sorted, each name once", arguments: Pair.allCases)
    func listUnion(pair: Pair) throws {
        let stores = try Stores(pair)
        defer { stores.cleanUp() }
        var inPrimary = try stores.record("shared", [1])
        inPrimary.metadata.updated = Timestamp(secondsSince1970: 1_800_000_000)
        try Samples.write([try stores.record("b-new", [1]), inPrimary], to: try stores.primary())
        try Samples.write(
            [try stores.record("a-old", [2]), try stores.record("shared", [2]), try stores.record("c-old", [3])],
            to: try stores.fallback())
        let listed = try stores.store().list(service: stores.service)
        #expect(listed.map(\.name.account) == ["a-old", "b-new", "c-old", "shared"])
        #expect(listed.last == inPrimary.entry)
    }

    @Test("a move interrupted after the write leaves the secret readable and listed once")
    func interruptedMove() throws {
        let stores = try Stores(.files)
        let record = try stores.record("token", Array("value".utf8))
        try stores.fallback().write(record)
        // Four operations: both reads, the primary store's write and its read-back; then it stops
        // before the fallback's delete.
        let budget = OperationBudget(limit: 4)
        let interrupted = FallbackStore(
            primary: budget.wrap(try stores.primary()), fallback: budget.wrap(try stores.fallback()))
        #expect(throws: OperationBudget.crash) { try interrupted.read(record.name) }
        #expect(try stores.primary().read(record.name) == record)
        #expect(try stores.fallback().read(record.name) == record)

        #expect(try stores.store().list(service: stores.service).map(\.name) == [record.name])
        #expect(try stores.store().read(record.name) == record)
        #expect(try stores.store().delete(record.name))
        #expect(try stores.store().read(record.name) == nil)
    }

    @Test("a fallback that cannot be unlocked is an error, never absent")
    func lockedFallback() throws {
        let stores = try Stores(.files)
        try stores.fallback().write(try stores.record("token", [1]))
        let wrongKey = FileStore(
            path: stores.scratch.store("fallback").path,
            keys: .identity(X25519Identity.generate(), origin: "a wrong key"))
        let store = FallbackStore(primary: try stores.primary(), fallback: wrongKey)
        #expect { try store.read(try stores.record("token", []).name) } throws: {
            ($0 as? VaultError)?.code == .cannotUnlock
        }
        #expect { try store.list(service: nil) } throws: { ($0 as? VaultError)?.code == .cannotUnlock }
    }
}

extension StorePair {
    init(_ pair: FallbackStoreTests.Pair) throws {
        try self.init(
            pair == .keyringOverFile ? .secretService : .file("primary"),
            pair == .fileOverKeyring ? .secretService : .file("fallback"), purpose: "fallback")
    }

    func primary() throws -> any SecretStore { try first() }
    func fallback() throws -> any SecretStore { try second() }
    func store() throws -> FallbackStore { FallbackStore(primary: try primary(), fallback: try fallback()) }

    func record(_ account: String, _ value: [UInt8]) throws -> SecretRecord {
        let time = Timestamp(secondsSince1970: 1_700_000_000)
        return SecretRecord(
            name: try SecretName(service: service, account: account), value: value,
            metadata: SecretMetadata(created: time, updated: time))
    }
}
