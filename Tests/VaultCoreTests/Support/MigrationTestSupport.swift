import Foundation
import Testing
import VaultAge
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

// Helpers for the migration and fallback tests: private vault files, sample secrets, reading a
// store's whole content, and a store decorator that stops the work after N operations.

/// A private directory of vault files sharing one identity, removed with the object.
final class ScratchFiles: Sendable {
    let directory: String
    let identity = X25519Identity.generate()

    init() throws {
        directory = try makeTemporaryDirectory(prefix: "vault-migration").path
    }

    /// A new store object for the file `name`, as a new process would open it.
    func store(_ name: String) -> FileStore {
        FileStore(path: "\(directory)/\(name).age", keys: .identity(identity, origin: "the test identity"))
    }

    deinit { removeTemporaryDirectory(URL(fileURLWithPath: directory)) }
}

/// Two real stores for a test, opened afresh on each call: each a vault file in a scratch folder
/// or the session's Secret Service, under a service of its own that `cleanUp` empties. The ends of
/// a migration, or the primary and fallback of a fallback store.
struct StorePair {
    enum End: Equatable {
        /// The vault file `name` in the scratch folder.
        case file(String)
        case secretService
    }

    let ends: (first: End, second: End)
    let scratch: ScratchFiles
    let service: String
    private var usesKeyring: Bool { ends.first == .secretService || ends.second == .secretService }

    /// Two ends; a Secret Service end needs a keyring (``SessionKeyring/require(sourceLocation:)``).
    init(_ first: End, _ second: End, purpose: String) throws {
        ends = (first, second)
        scratch = try ScratchFiles()
        let keyring = first == .secretService || second == .secretService
        if keyring { try SessionKeyring.require() }
        service = keyring ? uniqueKeyringService(purpose) : "vault"
    }

    func first() throws -> any SecretStore { try open(ends.first) }
    func second() throws -> any SecretStore { try open(ends.second) }

    private func open(_ end: End) throws -> any SecretStore {
        switch end {
        case .file(let name): scratch.store(name)
        case .secretService: try SecretServiceStore(timeout: SessionKeyring.timeout)
        }
    }

    func cleanUp() { if usesKeyring { SessionKeyring.clean([service]) } }
}

enum Samples {
    /// Secrets with every kind of value: text, empty, binary with NUL bytes, large, and one
    /// that expires. `large` is the size of the largest value.
    static func records(service: String, count: Int, large: Int = 1 << 16, prefix: String = "secret") throws
        -> [SecretRecord]
    {
        try (0..<count).map { index in
            let value: [UInt8]
            switch index % 5 {
            case 0: value = Array("ghp_token-\(index)-\(service)".utf8)
            case 1: value = []
            case 2: value = [0, 0xFF, 0, 0x0A, UInt8(index & 0xFF), 0x80, 0]
            case 3: value = (0..<large).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            default: value = Array("line \(index)\n\n".utf8)
            }
            let created = Timestamp(secondsSince1970: 1_700_000_000 + Int64(index))
            return SecretRecord(
                name: try SecretName(service: service, account: "\(prefix)-\(index)"), value: value,
                metadata: SecretMetadata(
                    created: created, updated: created.adding(seconds: 60),
                    expires: index % 4 == 3 ? created.adding(seconds: 86_400) : nil))
        }
    }

    /// Every secret of the services, read one by one.
    static func contents(_ store: any SecretStore, services: [String]) throws -> [SecretName: SecretRecord] {
        var result: [SecretName: SecretRecord] = [:]
        for service in services {
            for entry in try store.list(service: service) {
                result[entry.name] = try #require(try store.read(entry.name))
            }
        }
        return result
    }

    static func write(_ records: [SecretRecord], to store: any SecretStore) throws {
        if let batch = store as? any SecretBatchStore {
            try batch.write(records)
        } else {
            for record in records { try store.write(record) }
        }
    }
}

/// How many store operations a run may still do: operation number `limit` and every later one
/// throw without running, as if the process had been killed between two operations. Each
/// operation of the stores is atomic, so this reaches every state a kill can leave.
final class OperationBudget {
    static let crash = VaultError(.other, "simulated crash")

    let limit: Int
    private(set) var used = 0

    init(limit: Int = .max) {
        self.limit = limit
    }

    func spend() throws(VaultError) {
        guard used < limit else { throw Self.crash }
        used += 1
    }

    /// `store` behind the budget; it offers batches only if `batches` and `store` has them.
    func wrap(_ store: any SecretStore, batches: Bool = true) -> any SecretStore {
        if batches, let batch = store as? any SecretBatchStore { return InterruptingBatchStore(batch, budget: self) }
        return InterruptingStore(store, budget: self)
    }
}

/// A decorator at the storage edge that spends one ``OperationBudget`` unit per operation.
class InterruptingStore: SecretStore {
    let inner: any SecretStore
    let budget: OperationBudget

    init(_ inner: any SecretStore, budget: OperationBudget) {
        self.inner = inner
        self.budget = budget
    }

    var label: String { inner.label }

    func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        try budget.spend()
        return try inner.read(name)
    }

    func write(_ record: SecretRecord) throws(VaultError) {
        try budget.spend()
        try inner.write(record)
    }

    func delete(_ name: SecretName) throws(VaultError) -> Bool {
        try budget.spend()
        return try inner.delete(name)
    }

    func list(service: String?) throws(VaultError) -> [SecretEntry] {
        try budget.spend()
        return try inner.list(service: service)
    }
}

/// The same for a store with batches; a batch is one operation, as it is one rewrite.
final class InterruptingBatchStore: InterruptingStore, SecretBatchStore {
    private let batch: any SecretBatchStore

    init(_ batch: any SecretBatchStore, budget: OperationBudget) {
        self.batch = batch
        super.init(batch, budget: budget)
    }

    func readAll(service: String?) throws(VaultError) -> [SecretRecord] {
        try budget.spend()
        return try batch.readAll(service: service)
    }

    func write(_ records: [SecretRecord]) throws(VaultError) {
        try budget.spend()
        try batch.write(records)
    }

    func deleteUnchanged(_ records: [SecretRecord]) throws(VaultError) -> Set<SecretName> {
        try budget.spend()
        return try batch.deleteUnchanged(records)
    }
}
