import Foundation
import Testing
import VaultSecureBytes

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// What a migration does with real stores, beyond interruptions (MigrationInterruptionTests).
@Suite("Migration")
struct MigrationTests {
    enum Route: String, Sendable, CaseIterable {
        case fileToFile = "file to file"
        case fileToSecretService = "file to secret-service"
        case secretServiceToFile = "secret-service to file"
    }

    /// Opens both ends of a route; the Secret Service ends use a unique service.
    typealias Ends = StorePair

    @Test("every secret goes over byte for byte with its metadata, 1 MiB values included", arguments: Route.allCases)
    func byteExact(route: Route) throws {
        let ends = try Ends(route)
        defer { ends.cleanUp() }
        let records = try Samples.records(service: ends.service, count: 12, large: 1 << 20)
        try Samples.write(records, to: try ends.source())
        let migration = Migration(
            from: try ends.source(), to: try ends.destination(), options: .init(service: ends.service))
        try migration.run()
        #expect(migration.progress.migrated == records.count)
        #expect(migration.progress.removedFromSource == records.count)
        let arrived = try Samples.contents(try ends.destination(), services: [ends.service])
        #expect(arrived == Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) }))
        #expect(try ends.source().list(service: ends.service).isEmpty)
    }

    @Test("conflicts are all found before anything is written, and then nothing changes", arguments: Route.allCases)
    func conflictsChangeNothing(route: Route) throws {
        let ends = try Ends(route)
        defer { ends.cleanUp() }
        let records = try Samples.records(service: ends.service, count: 6, large: 100)
        try Samples.write(records, to: try ends.source())
        var later = records[5]
        later.value = SecureBytes("a different value".utf8)
        var expiring = records[4]
        expiring.metadata.expires = Timestamp(secondsSince1970: 2_000_000_000)
        try Samples.write([later, expiring], to: try ends.destination())

        let migration = Migration(
            from: try ends.source(), to: try ends.destination(), options: .init(service: ends.service))
        let plan = try migration.plan()
        #expect(plan.filter { $0.action == .conflict }.map(\.name) == [expiring.name, later.name])
        expectFailure(.conflict) { try migration.run() }
        #expect(migration.progress == Migration.Progress())
        let sourceAfter = try Samples.contents(try ends.source(), services: [ends.service])
        #expect(sourceAfter == Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) }))
        let destinationAfter = try Samples.contents(try ends.destination(), services: [ends.service])
        #expect(destinationAfter == [later.name: later, expiring.name: expiring])

        let overwriting = Migration(
            from: try ends.source(), to: try ends.destination(), options: .init(service: ends.service, overwrite: true))
        try overwriting.run()
        #expect(overwriting.progress.overwritten == 2)
        let final = try Samples.contents(try ends.destination(), services: [ends.service])
        #expect(final == Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) }))
    }

    @Test(
        "a copy that reads back differently stops the migration before the source is touched", arguments: [true, false])
    func verification(batches: Bool) throws {
        let scratch = try ScratchFiles()
        let records = try Samples.records(service: "vault", count: 4, large: 100)
        try Samples.write(records, to: scratch.store("source"))
        let destination = CorruptingStore(scratch.store("destination"))
        let migration = Migration(
            from: OperationBudget().wrap(scratch.store("source"), batches: batches),
            to: OperationBudget().wrap(destination, batches: batches), options: .init(service: "vault"))
        #expect { try migration.run() } throws: { ($0 as? VaultError)?.code == .damaged }
        #expect(migration.progress.removedFromSource == 0)
        #expect(try scratch.store("source").readAll(service: nil) == records)
    }

    @Test("a secret changed in the source during the migration is kept there and reported", arguments: [true, false])
    func changedInSource(batches: Bool) throws {
        let scratch = try ScratchFiles()
        let records = try Samples.records(service: "vault", count: 3, large: 100)
        try Samples.write(records, to: scratch.store("source"))
        let migration = Migration(
            from: OperationBudget().wrap(scratch.store("source"), batches: batches),
            to: OperationBudget().wrap(scratch.store("destination"), batches: batches), options: .init(service: "vault")
        )
        _ = try migration.plan()
        var changed = records[1]
        changed.value = SecureBytes("set while migrating".utf8)
        try scratch.store("source").write(changed)

        expectFailure(.conflict) { try migration.run() }
        #expect(migration.progress.changedInSource == [changed.name])
        #expect(migration.progress.removedFromSource == 2)
        #expect(try scratch.store("source").readAll(service: nil) == [changed])
        #expect(try scratch.store("destination").readAll(service: nil) == records)
    }

    @Test("the scope is one service, or every service")
    func scope() throws {
        let scratch = try ScratchFiles()
        let mine = try Samples.records(service: "vault", count: 2, large: 10)
        let theirs = try Samples.records(service: "github.com", count: 2, large: 10)
        try Samples.write(mine + theirs, to: scratch.store("source"))
        try Migration(from: scratch.store("source"), to: scratch.store("destination"), options: .init(service: "vault"))
            .run()
        #expect(try scratch.store("destination").readAll(service: nil) == mine)
        #expect(try scratch.store("source").readAll(service: nil) == theirs)
        try Migration(from: scratch.store("source"), to: scratch.store("destination"), options: .init(service: nil))
            .run()
        #expect(try scratch.store("destination").readAll(service: nil) == (theirs + mine))
        #expect(try scratch.store("source").readAll(service: nil).isEmpty)
    }
}

/// A file store that keeps something other than it is given: the last byte of every value
/// written is flipped (an empty value gains one).
final class CorruptingStore: SecretBatchStore {
    let inner: FileStore

    init(_ inner: FileStore) {
        self.inner = inner
    }

    var label: String { "corrupting \(inner.label)" }

    private func damaged(_ record: SecretRecord) -> SecretRecord {
        var damaged = record
        if let last = damaged.value.indices.last { damaged.value[last] ^= 1 } else { damaged.value = SecureBytes([1]) }
        return damaged
    }

    func write(_ record: SecretRecord) throws(VaultError) { try inner.write(damaged(record)) }
    func write(_ records: [SecretRecord]) throws(VaultError) { try inner.write(records.map(damaged)) }
    func read(_ name: SecretName) throws(VaultError) -> SecretRecord? { try inner.read(name) }
    func delete(_ name: SecretName) throws(VaultError) -> Bool { try inner.delete(name) }
    func list(service: String?) throws(VaultError) -> [SecretEntry] { try inner.list(service: service) }
    func readAll(service: String?) throws(VaultError) -> [SecretRecord] { try inner.readAll(service: service) }
    func deleteUnchanged(_ records: [SecretRecord]) throws(VaultError) -> Set<SecretName> {
        try inner.deleteUnchanged(records)
    }
}

extension StorePair {
    init(_ route: MigrationTests.Route) throws {
        try self.init(
            route == .secretServiceToFile ? .secretService : .file("source"),
            route == .fileToSecretService ? .secretService : .file("destination"), purpose: "migration")
    }

    func source() throws -> any SecretStore { try first() }
    func destination() throws -> any SecretStore { try second() }
}
