import VaultCore

/// A way to build a fresh store for the contract suite.
struct StoreFixture: Sendable, CustomStringConvertible {
    let description: String
    /// The service the tests write under; unique per fixture so shared backends do not collide.
    let service: String
    /// Builds an empty store and returns it with a clean-up action.
    let make: @Sendable () throws -> (any SecretStore, @Sendable () -> Void)

    func run(_ body: (any SecretStore) throws -> Void) throws {
        let (store, cleanup) = try make()
        defer { cleanup() }
        try body(store)
    }

    func record(
        _ account: String, _ value: [UInt8], service: String? = nil, created: Int64 = 1_700_000_000,
        updated: Int64 = 1_700_000_100
    ) throws -> SecretRecord {
        SecretRecord(
            name: try SecretName(service: service ?? self.service, account: account), value: value,
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: created), updated: Timestamp(secondsSince1970: updated)))
    }

    /// Every store the contract runs against. Backends add their fixture here.
    static let all: [StoreFixture] = [memory] + extra

    static let memory = StoreFixture(description: "memory", service: "contract") {
        (MemoryStore(), {})
    }
}
