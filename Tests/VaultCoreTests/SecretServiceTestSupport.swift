import Foundation
import Testing

@testable import VaultCore

// Helpers for the Secret Service tests: is a keyring reachable, the contract fixture,
// running helper programs, and private D-Bus buses for the tests that need their own.

/// Whether the tests can use the session's Secret Service, and what to do if not.
enum Keyring {
    /// Seconds for every Secret Service call in the tests.
    static let timeout = 10.0

    /// CI, and runs under Tests/with-keyring.sh, must have a keyring: there a missing one fails.
    static var required: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["CI"] == "true" || environment["VAULT_TEST_KEYRING"] == "1"
    }

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
    /// required, and cancels (skips) it with the reason elsewhere.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try requireTool(problem.map { "no usable Secret Service: \($0.message)" }, sourceLocation: sourceLocation)
    }

    /// The same policy for any missing prerequisite described by `reason`.
    static func requireTool(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let reason else { return }
        if required {
            let message =
                "\(reason) (required because CI=true or VAULT_TEST_KEYRING=1; run the tests as "
                + "`dbus-run-session -- Tests/with-keyring.sh swift test`)"
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            throw SkipTest()
        }
        // A cancelled parameterized case is not shown by the console reporter: say why here.
        FileHandle.standardError.write(Data("note: skipping a Secret Service test: \(reason)\n".utf8))
        try Test.cancel("\(reason)", sourceLocation: sourceLocation)
    }

    /// Ends a test whose failure is already recorded.
    struct SkipTest: Error {}

    /// A service name no other run or test uses.
    static func uniqueService(_ purpose: String) -> String {
        "vault-test-\(purpose)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Deletes everything in these services (best effort: clean-up must not hide a test's result).
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
        let service = Keyring.uniqueService("contract")
        return StoreFixture(description: "secret-service", service: service) {
            secretServiceLock.wait()
            do {
                try Keyring.require()
                let store = try SecretServiceStore(timeout: Keyring.timeout)
                Keyring.clean([service, service + "-other"])
                return (
                    store,
                    {
                        Keyring.clean([service, service + "-other"])
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
