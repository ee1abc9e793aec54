import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

// Helpers for the Secret Service tests: is a keyring reachable, the contract fixture,
// running helper programs, and private D-Bus buses for the tests that need their own.

/// Whether the tests can use the session's Secret Service, and what to do if not.
enum TestKeyring {
    /// Seconds for every Secret Service call in the tests.
    static let timeout = 10.0

    /// `make test`, CI, and runs under Tests/with-keyring.sh must have a keyring: there a missing one fails.
    static var required: Bool { keyringIsRequired }

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

    /// The same policy (``requireComponent(_:required:sourceLocation:)``) for any missing
    /// prerequisite of a keyring test described by `reason`.
    static func requireTool(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try requireComponent(reason, required: keyringIsRequired, sourceLocation: sourceLocation)
    }

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
        let service = TestKeyring.uniqueService("contract")
        return StoreFixture(description: "secret-service", service: service, usesSecretService: true) {
            secretServiceLock.wait()
            do {
                try TestKeyring.require()
                let store = try SecretServiceStore(timeout: TestKeyring.timeout)
                TestKeyring.clean([service, service + "-other"])
                return (
                    store,
                    {
                        TestKeyring.clean([service, service + "-other"])
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

/// Runs helper programs (secret-tool, python3, dbus-daemon) for the interop tests.
///
/// It uses posix_spawn and waitpid directly rather than Foundation's Process: children must
/// start with no signals blocked (else a daemon ignores SIGTERM), and waiting must not race
/// with Swift Testing's own reaping of exit-test children. Output goes to files, so no pipe
/// can fill up and block a child.
enum HelperProcess {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The program's path if it is installed (``findExecutable(_:in:)``).
    static func find(_ name: String) -> String? { findExecutable(name) }

    /// Starts a program in its own process group, stdin from `input`, stdout and stderr to files,
    /// with this process's environment plus `environment`.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String,
        output: String, errors: String
    ) throws -> pid_t {
        try spawnChild(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            input: .file(input), output: output, errors: errors, ownGroup: true)
    }

    /// Waits up to `timeout` seconds for `pid` to exit; returns its exit status, or nil if it is
    /// still running. A child killed by a signal reports 128 + the signal.
    static func wait(_ pid: pid_t, timeout: Double) -> Int32? { waitChild(pid, timeout: timeout) }

    /// Stops a child: SIGTERM, then SIGKILL if it has not exited within a few seconds.
    static func stop(_ pid: pid_t) { stopChild(pid) }

    /// Runs a program to completion (stopping it after `timeout` seconds), with this process's
    /// environment plus `environment` (``runTool(_:_:input:environment:timeout:ownGroup:)``).
    static func run(
        _ executable: String, _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:],
        timeout: Double = 30
    ) throws -> Result {
        let result = try runTool(
            executable, arguments, input: stdin ?? [],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, timeout: timeout,
            ownGroup: true)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
