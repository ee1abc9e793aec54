import VaultCore
import VaultTestSupport

@testable import VaultStorage

/// A way to build a fresh store for the contract suite.
struct StoreFixture: Sendable, CustomStringConvertible {
    let description: String
    /// The service the tests write under; unique per fixture so shared backends do not collide.
    let service: String
    /// Whether the store keeps its secrets in the Secret Service (its cases then run on every
    /// provider, and may be known to fail on some: ``withKnownProviderIssue``).
    var usesSecretService = false
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

    /// Every store the contract runs against. Backends add their fixture here. On a Secret Service
    /// provider other than GNOME Keyring (`make test` runs the contract again on each), only the
    /// stores that use it: the others were tested in the first run.
    static let all: [StoreFixture] =
        SecretServiceProvider.current == .gnomeKeyring
        ? [memory] + extra : ([memory] + extra).filter(\.usesSecretService)

    static let memory = StoreFixture(description: "memory", service: "contract") {
        (MemoryStore(), {})
    }
}
