import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

/// The Secret Service store when it cannot do its job: each failure is an error of the
/// right kind, quickly, and never "not found".
///
/// The tests that need a different D-Bus session run the store in an exit test (a child
/// process) pointed at a bus of their own; see ``PrivateBus``.
@Suite("Secret Service failures")
struct SecretServiceFailureTests {
    @Test("a library that does not load is .unavailable with the loader's reason, at first use")
    func libraryNotLoadable() throws {
        let library = "libvault-test-absent.so.0"
        let store = try SecretServiceStore(timeout: 1, library: library, directLibrary: nil)
        let error = #expect(throws: VaultError.self) { try store.list(service: nil) }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.contains("\(library): cannot open shared object file") == true,
            "\(String(describing: error))")
        let check = #expect(throws: VaultError.self) {
            try SecretServiceStore.checkAvailable(timeout: 1, library: library)
        }
        #expect(check?.code == .unavailable)
    }

    @Test("a library without libsecret's functions is .unavailable and names what is missing")
    func libraryIncomplete() throws {
        let store = try SecretServiceStore(timeout: 1, library: "libc.so.6", directLibrary: nil)
        let name = try SecretName(service: "vault-test", account: "x")
        let error = #expect(throws: VaultError.self) { try store.read(name) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("libc.so.6: missing g_") == true, "\(String(describing: error))")
    }

    @Test("a time-out that is not a positive number is a usage error")
    func badTimeout() {
        for timeout in [0, -1, Double.nan, Double.infinity] {
            let error = #expect(throws: VaultError.self) { try SecretServiceStore(timeout: timeout) }
            #expect(error?.code == .usage)
        }
    }

    @Test("no session bus is .unavailable, quickly")
    func noSessionBus() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/vault-test/bus", 1)
            var ok = ChildCheck.expect(.unavailable, "D-Bus session bus", "checkAvailable") {
                try SecretServiceStore.checkAvailable(timeout: 5)
            }
            let store = try SecretServiceStore(timeout: 5)
            let name = try SecretName(service: "vault-test", account: "x")
            ok = ChildCheck.expect(.unavailable, "D-Bus session bus", "read") { _ = try store.read(name) } && ok
            // No address at all, no X11 display to autolaunch a bus, no $XDG_RUNTIME_DIR/bus.
            unsetenv("DBUS_SESSION_BUS_ADDRESS")
            unsetenv("DISPLAY")
            setenv("XDG_RUNTIME_DIR", "/nonexistent/vault-test", 1)
            ok =
                ChildCheck.expect(.unavailable, "D-Bus session bus", "list, unset address") {
                    _ = try store.list(service: nil)
                } && ok
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }

    @Test("a bus without a Secret Service provider, or one that goes away, is .unavailable")
    func noProvider() async throws {
        try requireKeyringComponent(PrivateBus.missingTools(for: .none))
        // The child starts and stops the bus itself: a child of this process that ends while an
        // exit test runs would stall Swift Testing's wait for the exit test.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let bus = try PrivateBus(.none)
            setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
            var ok = ChildCheck.expect(.unavailable, "no Secret Service provider", "checkAvailable") {
                try SecretServiceStore.checkAvailable(timeout: 5)
            }
            // GLib would end the process when the bus connection closes; the store must not.
            bus.stop()
            ok =
                ChildCheck.expect(.unavailable, "bus", "checkAvailable after the bus went away") {
                    try SecretServiceStore.checkAvailable(timeout: 5)
                } && ok
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }

    @Test("a provider that never answers fails within the time-out")
    func neverAnswers() async throws {
        try requireKeyringComponent(PrivateBus.missingTools(for: .silentOwner))
        let bus = try PrivateBus(.silentOwner)
        defer { bus.stop() }
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [address = bus.address as String] in
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
            let answer = "did not answer within 1 s"
            var ok = ChildCheck.expect(.unavailable, answer, "checkAvailable", within: 3) {
                try SecretServiceStore.checkAvailable(timeout: 1)
            }
            let store = try SecretServiceStore(timeout: 1)
            let record = SecretRecord(
                name: try SecretName(service: "vault-test", account: "x"), value: [1],
                metadata: SecretMetadata(created: .now(), updated: .now()))
            ok = ChildCheck.expect(.unavailable, answer, "read", within: 3) { _ = try store.read(record.name) } && ok
            // The read without libsecret gives up at its own deadline too, rather than leaving
            // libsecret's path another time-out.
            let start = ContinuousClock.now
            let direct = SecretServiceDirectRead.read(
                record.name, timeout: 1, library: SecretServiceDirectRead.defaultLibrary)
            let took = ContinuousClock.now - start
            let timedOut = if case .timedOut = direct { true } else { false }
            print(timedOut && took < .seconds(3) ? "direct read: timed out" : "direct read: \(direct) after \(took)")
            ok = timedOut && took < .seconds(3) && ok
            ok = ChildCheck.expect(.unavailable, answer, "write", within: 3) { try store.write(record) } && ok
            ok = ChildCheck.expect(.unavailable, answer, "delete", within: 3) { try store.delete(record.name) } && ok
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }

    @Test("a locked keyring is .cannotUnlock for every operation, without a prompt")
    func lockedKeyring() async throws {
        try requireKeyringComponent(PrivateBus.missingTools(for: .keyring(password: "")))
        let bus = try PrivateBus(.keyring(password: "vault-test-locked"))
        defer { bus.stop() }
        try bus.storeAndLock(service: "vault-test-locked", account: "present")

        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [address = bus.address as String] in
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
            let store = try SecretServiceStore(timeout: 5)
            let present = try SecretName(service: "vault-test-locked", account: "present")
            let absent = try SecretName(service: "vault-test-locked", account: "absent")
            let metadata = SecretMetadata(created: .now(), updated: .now())
            let checks: [(String, () throws -> Void)] = [
                ("checkAvailable", { try SecretServiceStore.checkAvailable(timeout: 5) }),
                ("read present", { _ = try store.read(present) }),
                ("read absent", { _ = try store.read(absent) }),
                ("write present", { try store.write(SecretRecord(name: present, value: [1], metadata: metadata)) }),
                ("write absent", { try store.write(SecretRecord(name: absent, value: [1], metadata: metadata)) }),
                ("delete present", { try store.delete(present) }),
                ("delete absent", { try store.delete(absent) }),
                ("list service", { _ = try store.list(service: "vault-test-locked") }),
                ("list all", { _ = try store.list(service: nil) }),
            ]
            var ok = true
            for (what, body) in checks {
                ok = ChildCheck.expect(.cannotUnlock, "locked", what, within: 4, body) && ok
            }
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }
}

extension SecretServiceFailureTests {
    @Test("an update whose deadline fires after its attributes puts the old metadata back")
    func restoreAfterDeadline() throws {
        try SessionKeyring.require()
        let service = uniqueKeyringService("restore")
        defer { SessionKeyring.clean([service]) }
        let plain = try SecretServiceStore(timeout: SessionKeyring.timeout)
        let old = SecretRecord(
            name: try SecretName(service: service, account: "token"), value: Array("old".utf8),
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 1_000), updated: Timestamp(secondsSince1970: 1_000)))
        try plain.write(old)

        // The hook waits for the deadline to fire between the attributes and the secret, as a
        // slow provider would make it: the secret then fails, and the metadata must be restored.
        let reached = Flag()
        let store = try SecretServiceStore(
            timeout: 3, library: SecretServiceStore.defaultLibrary,
            afterAttributes: { waitForDeadline in
                reached.set()
                waitForDeadline()
            })
        var new = old
        new.value = SecureBytes("new".utf8)
        new.metadata.updated = Timestamp(secondsSince1970: 2_000)
        new.metadata.expires = Timestamp(secondsSince1970: 3_000)
        let error = #expect(throws: VaultError.self) { try store.write(new) }
        #expect(error?.code == .unavailable, "\(String(describing: error))")
        try #require(reached.isSet, "the update did not reach its secret within 3 s")
        let back = try #require(try plain.read(old.name))
        #expect(back.value == old.value)
        #expect(back.metadata == old.metadata)
    }
}

/// A flag set from a callback.
final class Flag: @unchecked Sendable {
    // Set and read on the test's own thread only (the hook runs inside the store's call).
    private(set) var isSet = false
    func set() { isSet = true }
}

/// Checks made inside an exit test's child, reported on its stdout.
enum ChildCheck {
    /// Runs `body`, expecting it to throw `code` with `text` in the message within `seconds`.
    static func expect(
        _ code: VaultError.Code, _ text: String, _ what: String, within seconds: Double = 3,
        _ body: () throws -> Void
    ) -> Bool {
        let start = ContinuousClock.now
        do {
            try body()
            print("FAIL \(what): no error")
            return false
        } catch {
            guard let error = error as? VaultError else {
                print("FAIL \(what): not a VaultError: \(error)")
                return false
            }
            let elapsed = ContinuousClock.now - start
            let ok = error.code == code && error.message.contains(text) && elapsed < .seconds(seconds)
            print("\(ok ? "ok" : "FAIL") \(what): .\(error.code) after \(elapsed): \(error.message)")
            return ok
        }
    }

    /// Shows the child's report when it failed.
    static func report(_ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result, result.exitStatus != .exitCode(EXIT_SUCCESS) else { return }
        let output = String(decoding: result.standardOutputContent, as: UTF8.self)
        Issue.record(Comment(rawValue: "child process reported:\n\(output)"), sourceLocation: sourceLocation)
    }
}
