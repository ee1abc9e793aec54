import Foundation
import Testing
import VaultTestSupport

/// vault's own session with the Secret Service (the shim's Session.c): the spec's
/// dh-ietf1024-sha256-aes128-cbc-pkcs7 against an independent implementation in
/// Tests/fake-secret-service.py (Python's integers and python3-cryptography), and what vault does
/// when a provider's session goes wrong. The real providers (GNOME Keyring, KeePassXC, KWallet)
/// run the same exchange in the contract and interop suites.
@Suite("Secret Service: vault's session key agreement")
struct SecretServiceSessionTests {
    static let openDH = "OpenSession dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// One `vault get a` against the fake in `mode`: the run (get.out, get.err, get.status) and
    /// the fake's log of calls.
    static func get(mode: String) throws -> (run: HarnessScript, calls: [Substring]) {
        let run = try FakeSecretService.run(mode: mode, commands: FakeSecretService.vault("get", "get a"))
        return (run, run.read("calls").split(separator: "\n"))
    }

    @Test("secrets travel encrypted both ways, one key agreement per process, a 128-byte public key")
    func encryptedBothWays() throws {
        let run = try FakeSecretService.run(
            mode: "dh",
            commands: [
                FakeSecretService.vault("first", "get a"),
                FakeSecretService.vault("set", "set a", input: "a new value, sent through the session"),
                FakeSecretService.vault("second", "get a"),
            ].joined(separator: "\n"))
        defer { run.cleanUp() }
        let calls = run.read("calls").split(separator: "\n")
        #expect(run.read("first.status") == "0", "\(run.read("first.err")) \(run.read("fake.err"))")
        #expect(run.read("first.out") == "fake value")
        #expect(run.read("set.status") == "0", "\(run.read("set.err")) \(run.read("fake.err"))")
        #expect(run.read("second.out") == "a new value, sent through the session")
        // The fake refuses a public key that is not 128 bytes with a first byte other than zero,
        // so each process agreed a key at its first try.
        #expect(calls.filter { $0 == Self.openDH }.count == 3, "\(calls)")
        #expect(!calls.contains("OpenSession plain"), "\(calls)")
        #expect(calls.filter { $0 == "SetSecret" }.count == 1, "\(calls)")
    }

    @Test("a shared secret with a zero first byte is not used: that session is closed and another agreed")
    func ambiguousSecretIsNotUsed() throws {
        let (run, calls) = try Self.get(mode: "dh-ambiguous")
        defer { run.cleanUp() }
        #expect(run.read("get.status") == "0", "\(run.read("get.err")) \(run.read("fake.err"))")
        #expect(run.read("get.out") == "fake value")
        #expect(calls.filter { $0 == Self.openDH }.count == 2, "\(calls)")
        #expect(calls.filter { $0 == "Close" }.count == 1, "\(calls)")
        #expect(calls.filter { $0 == "GetSecrets" }.count == 1, "\(calls)")
    }

    @Test("a provider's public value of 1 (a key anyone knows) is refused: no secret is asked for")
    func degeneratePublicValueIsRefused() throws {
        let (run, calls) = try Self.get(mode: "dh-invalid")
        defer { run.cleanUp() }
        #expect(run.read("get.status") == "9", "\(run.read("get.err"))")
        #expect(run.read("get.out").isEmpty)
        #expect(run.read("get.err").contains("the Secret Service provider sent an invalid session key"))
        #expect(run.read("get.err").split(separator: "\n").count == 1, "\(run.read("get.err"))")
        #expect(!calls.contains("GetSecrets"), "\(calls)")
        // The read over sd-bus refuses it and leaves the read to libsecret's path, which tries a
        // fresh session once, as for any broken session: three sessions in all.
        #expect(calls.filter { $0 == Self.openDH }.count == 3, "\(calls)")
    }

    @Test("a secret that does not decrypt to valid padding is not handed over: a fresh session reads it")
    func badPaddingIsRetried() throws {
        let (run, calls) = try Self.get(mode: "bad-padding")
        defer { run.cleanUp() }
        #expect(run.read("get.status") == "0", "\(run.read("get.err")) \(run.read("fake.err"))")
        #expect(run.read("get.out") == "fake value")
        #expect(calls.filter { $0 == "GetSecrets" }.count == 2, "\(calls)")
        #expect(calls.filter { $0 == Self.openDH }.count == 2, "\(calls)")
    }
}
