import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

// The session keyring in process: SessionKeyring (VaultTestSupport) probed and cleaned through
// the store, and the contract fixture.

extension SessionKeyring {
    /// Seconds for every Secret Service call in the tests.
    static let timeout = 10.0

    /// Why the session's Secret Service cannot be used, or nil if it can.
    static let problem: VaultError? = {
        do throws(VaultError) {
            try SecretServiceStore.checkAvailable(timeout: timeout)
            return nil
        } catch {
            return error
        }
    }()

    /// Returns normally if the keyring is usable; otherwise fails the test where a keyring is
    /// required, and cancels (skips) it with the reason elsewhere (``require(problem:sourceLocation:)``).
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try require(problem: problem?.message, sourceLocation: sourceLocation)
    }

    /// Deletes everything in these services through the store (best effort: clean-up must not
    /// hide a test's result).
    static func clean(_ services: [String]) {
        guard let store = try? SecretServiceStore(timeout: timeout) else { return }
        for service in services {
            for entry in (try? store.list(service: service)) ?? [] { _ = try? store.delete(entry.name) }
        }
    }
}

extension StoreFixture {
    /// The contract suite against the session's Secret Service.
    ///
    /// The contract's tests run in parallel and share this fixture's service name, so a
    /// process-wide lock lets one of them at a time use it; each run starts empty and
    /// deletes what it wrote.
    static let secretService: StoreFixture = {
        let service = uniqueKeyringService("contract")
        return StoreFixture(description: "secret-service", service: service, usesSecretService: true) {
            secretServiceLock.wait()
            do {
                try SessionKeyring.require()
                let store = try SecretServiceStore(timeout: SessionKeyring.timeout)
                SessionKeyring.clean([service, service + "-other"])
                return (
                    store,
                    {
                        SessionKeyring.clean([service, service + "-other"])
                        secretServiceLock.signal()
                    }
                )
            } catch {
                secretServiceLock.signal()
                throw error
            }
        }
    }()

    private static let secretServiceLock = DispatchSemaphore(value: 1)
}
