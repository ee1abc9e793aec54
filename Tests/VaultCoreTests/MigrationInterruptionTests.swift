import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultSecretService
@testable import VaultStorage

/// A migration stopped after any number of store operations, then run again, ends with every
/// secret in the destination exactly once, byte for byte, and nothing lost on the way.
@Suite("Migration, interrupted at every step")
struct MigrationInterruptionTests {
    enum Backend: String, Sendable {
        case file
        case secretService = "secret-service"
    }

    struct Case: Sendable, CustomStringConvertible {
        var source = Backend.file
        var destination = Backend.file
        /// Whether the stores may use their batch operations (the file store has them).
        var batches = true
        var keepSource = false
        var overwrite = false
        var allServices = false
        var count = 8

        var description: String {
            var text = "\(source.rawValue) to \(destination.rawValue)"
            text += batches ? ", in batches" : ", one secret at a time"
            if keepSource { text += ", keeping the source" }
            if overwrite { text += ", overwriting conflicts" }
            if allServices { text += ", every service" }
            return text
        }

        var usesKeyring: Bool { source == .secretService || destination == .secretService }
    }

    static let cases: [Case] = [
        Case(),
        Case(batches: false, allServices: true),
        Case(keepSource: true),
        Case(batches: false, overwrite: true),
        Case(destination: .secretService, count: 3),
        Case(source: .secretService, count: 3),
    ]

    @Test("a rerun after an interruption at any operation finishes the job", arguments: cases)
    func interruptedAnywhere(_ test: Case) throws {
        if test.usesKeyring { try SessionKeyring.require() }
        let services = Services(test)
        defer { if test.usesKeyring { SessionKeyring.clean(services.all) } }

        let counting = OperationBudget()
        try Arrangement(test, services).migrate(budget: counting)
        let total = counting.used
        #expect(total > 4)

        for limit in 0...total {
            let arrangement = try Arrangement(test, services)
            do {
                try arrangement.migrate(budget: OperationBudget(limit: limit))
                #expect(limit == total, "stopped after \(limit) of \(total) operations, yet it finished")
            } catch {
                #expect(error == OperationBudget.crash, "after \(limit) operations: \(error)")
            }
            try arrangement.expectNothingLost(after: limit)
            try arrangement.migrate(budget: OperationBudget())
            try arrangement.expectFinished(after: limit)
        }
    }

    /// The services a case writes under: unique in the shared keyring.
    struct Services {
        let scope: String
        let other: String
        var all: [String] { [scope, other] }

        init(_ test: Case) {
            scope = test.usesKeyring ? uniqueKeyringService("interrupted") : "migrated"
            other = test.usesKeyring ? uniqueKeyringService("untouched") : "elsewhere"
        }
    }

    /// Fresh stores holding a case's starting state, and what they must hold afterwards.
    final class Arrangement {
        let test: Case
        let services: Services
        let scratch: ScratchFiles
        /// The secrets to migrate, as the source holds them at the start.
        let moving: [SecretRecord]
        /// The destination's final content for the secrets moved.
        let expected: [SecretName: SecretRecord]
        /// Secrets out of scope, in each store: never touched.
        let untouchedSource: [SecretName: SecretRecord]
        let untouchedDestination: [SecretName: SecretRecord]

        init(_ test: Case, _ services: Services) throws {
            self.test = test
            self.services = services
            scratch = try ScratchFiles()
            if test.usesKeyring { SessionKeyring.clean(services.all) }

            var moving = try Samples.records(service: services.scope, count: test.count, large: 4096)
            var outside = try Samples.records(service: services.other, count: 2, prefix: "outside")
            if test.allServices {
                moving += outside
                outside = []
            }
            // Already in the destination: one with the same value but other times (skipped), and
            // with --overwrite one with another value (replaced).
            var same = moving[0]
            same.metadata.created = Timestamp(secondsSince1970: 1_600_000_000)
            same.metadata.updated = same.metadata.created
            var present = [same]
            var expected: [SecretName: SecretRecord] = [:]
            for record in moving { expected[record.name] = record }
            expected[same.name] = same
            if test.overwrite {
                var different = moving[1]
                different.value = SecureBytes("an older value".utf8)
                present.append(different)
            }
            var outsideThere = outside
            for index in outsideThere.indices { outsideThere[index].value += [0x42] }

            try Samples.write(moving + outside, to: try Self.open(test.source, "source", in: scratch))
            try Samples.write(present + outsideThere, to: try Self.open(test.destination, "destination", in: scratch))
            self.moving = moving
            self.expected = expected
            untouchedSource = Dictionary(uniqueKeysWithValues: outside.map { ($0.name, $0) })
            untouchedDestination = Dictionary(uniqueKeysWithValues: outsideThere.map { ($0.name, $0) })
        }

        func open(_ backend: Backend, _ file: String) throws -> any SecretStore {
            try Self.open(backend, file, in: scratch)
        }

        static func open(_ backend: Backend, _ file: String, in scratch: ScratchFiles) throws -> any SecretStore {
            switch backend {
            case .file: return scratch.store(file)
            case .secretService: return try SecretServiceStore(timeout: SessionKeyring.timeout)
            }
        }

        /// Runs the case's migration on newly opened stores, as a new process would.
        func migrate(budget: OperationBudget) throws(VaultError) {
            let source: any SecretStore
            let destination: any SecretStore
            do {
                source = try open(test.source, "source")
                destination = try open(test.destination, "destination")
            } catch {
                throw VaultError(.other, "cannot open the stores: \(error)")
            }
            let options = Migration.Options(
                service: test.allServices ? nil : services.scope, overwrite: test.overwrite,
                keepSource: test.keepSource, chunkCount: 3)
            try Migration(
                from: budget.wrap(source, batches: test.batches), to: budget.wrap(destination, batches: test.batches),
                options: options
            ).run()
        }

        private func contents() throws -> (source: [SecretName: SecretRecord], destination: [SecretName: SecretRecord])
        {
            (
                try Samples.contents(try open(test.source, "source"), services: services.all),
                try Samples.contents(try open(test.destination, "destination"), services: services.all)
            )
        }

        /// Each secret is still in the source as it was, or in the destination with its value.
        func expectNothingLost(after limit: Int) throws {
            let (source, destination) = try contents()
            for record in moving {
                let kept = source[record.name] == record
                let arrived = destination[record.name]?.isSameSecret(as: record) ?? false
                #expect(kept || arrived, "after \(limit) operations, '\(record.name)' is in neither store intact")
            }
        }

        func expectFinished(after limit: Int) throws {
            let (source, destination) = try contents()
            var wantedSource = untouchedSource
            if test.keepSource { for record in moving { wantedSource[record.name] = record } }
            let wantedDestination = expected.merging(untouchedDestination) { first, _ in first }
            #expect(destination == wantedDestination, "destination after a rerun that followed \(limit) operations")
            #expect(source == wantedSource, "source after a rerun that followed \(limit) operations")
        }
    }
}
