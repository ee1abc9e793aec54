import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

/// The read that goes without libsecret (sd-bus, ``SecretServiceDirectRead``): it returns what
/// libsecret's path returns, on every provider (the suite runs on GNOME Keyring, KeePassXC and
/// KWallet), and leaves everything else to that path.
@Suite("Secret Service direct read", .kwalletSessionFlakes)
struct SecretServiceDirectReadTests {
    private static func direct(_ name: SecretName) -> SecretServiceDirectRead.Outcome {
        SecretServiceDirectRead.read(
            name, timeout: SessionKeyring.timeout, library: SecretServiceDirectRead.defaultLibrary)
    }

    /// The record the direct read returns, tried up to three times: it leaves a read to libsecret
    /// when the key agreement gives a shared secret with a leading zero byte (1 in 256, which
    /// providers encode differently) or when KWallet's key exchange fails (about 1 in 100).
    private static func directRecord(_ name: SecretName) -> SecretRecord? {
        for _ in 0..<3 {
            if case .record(let record) = direct(name) { return record }
        }
        return nil
    }

    /// The store with every read through libsecret.
    private static func libsecretOnly() throws -> SecretServiceStore {
        try SecretServiceStore(
            timeout: SessionKeyring.timeout, library: SecretServiceStore.defaultLibrary, directLibrary: nil)
    }

    @Test("it reads the record libsecret's path reads: values, vault's metadata, another tool's item")
    func sameRecord() throws {
        try SessionKeyring.require()
        let service = uniqueKeyringService("direct")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)
        let metadata = SecretMetadata(
            created: Timestamp(secondsSince1970: 1_700_000_000), updated: Timestamp(secondsSince1970: 1_700_000_100),
            expires: Timestamp(secondsSince1970: 1_900_000_000), kind: SecretKind(rawValue: "totp"))
        let written: [(String, [UInt8], SecretMetadata)] = [
            ("text", Array("ghp_direct-read-0123456789".utf8), metadata),
            ("binary", [0, 1, 0, 0xFF, 0x80, 0x0A], SecretMetadata(created: .now(), updated: .now())),
            ("block", Array(repeating: 0x41, count: 16), metadata),  // a whole block of padding
            ("long", Array((0..<5000).map { UInt8($0 % 251) }), metadata),
        ]
        for (account, value, metadata) in written {
            try store.write(
                SecretRecord(name: try SecretName(service: service, account: account), value: value, metadata: metadata)
            )
        }
        // An item of another tool: no vault attributes, its times are the item's own.
        let secretTool = try #require(findExecutable("secret-tool"), "secret-tool is not installed")
        let stored = try runSecretServiceClient(
            secretTool, ["store", "--label=other tool", "service", service, "username", "other"],
            input: Array("from secret-tool".utf8), timeout: 30)
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")

        let plain = try Self.libsecretOnly()
        for account in written.map(\.0) + ["other"] {
            let name = try SecretName(service: service, account: account)
            let expected = try #require(try plain.read(name), "libsecret's path found no \(account)")
            let record = Self.directRecord(name)
            #expect(record != nil, "the direct read did not read \(account)")
            #expect(record == nil || record == expected, "\(account)")
        }
        #expect(try plain.read(try SecretName(service: service, account: "text"))?.metadata == metadata)
    }

    @Test("what it does not read (absent, half-written, no sd-bus) the store reads through libsecret")
    func leftToLibsecret() throws {
        try SessionKeyring.require()
        let service = uniqueKeyringService("direct-left")
        defer { SessionKeyring.clean([service]) }
        let absent = try SecretName(service: service, account: "absent")
        #expect(Self.direct(absent).isUnusable)
        #expect(try SecretServiceStore(timeout: SessionKeyring.timeout).read(absent) == nil)

        // What a write that never finished leaves: vault's "non-empty" attribute, an empty value.
        let secretTool = try #require(findExecutable("secret-tool"), "secret-tool is not installed")
        let stored = try runSecretServiceClient(
            secretTool,
            ["store", "--label=half", "service", service, "username", "half", SecretServiceItems.nonEmptyKey, "true"],
            input: [], timeout: 30)
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
        let half = try SecretName(service: service, account: "half")
        #expect(Self.direct(half).isUnusable)
        #expect(try Self.libsecretOnly().read(half) == nil)

        // Where sd-bus does not load, every read goes through libsecret.
        let name = try SecretName(service: service, account: "token")
        let record = SecretRecord(
            name: name, value: Array("value".utf8), metadata: SecretMetadata(created: .now(), updated: .now()))
        let store = try SecretServiceStore(
            timeout: SessionKeyring.timeout, library: SecretServiceStore.defaultLibrary,
            directLibrary: "libvault-test-absent.so.0")
        try store.write(record)
        #expect(
            SecretServiceDirectRead.read(name, timeout: SessionKeyring.timeout, library: "libvault-test-absent.so.0")
                .isUnusable)
        #expect(try store.read(name) == record)
    }
}

extension SecretServiceDirectRead.Outcome: CustomStringConvertible {
    var isUnusable: Bool {
        if case .unusable = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .record(let record): "a record of \(record.value.count) bytes"
        case .unusable: "unusable"
        case .timedOut: "timed out"
        }
    }
}

/// The direct read keeps its connection and session for the process, as libsecret's path does:
/// `exec` reading several secrets agrees one key. Run on GNOME Keyring only (the main run): on
/// KWallet about one key exchange in 100 fails, and a failure drops the session on purpose.
@Suite("Secret Service direct read: one session per process")
struct SecretServiceDirectSessionTests {
    @Test("reads share one connection and one session; nothing found keeps them; each read is right")
    func keptSession() async throws {
        try SessionKeyring.require()
        let service = uniqueKeyringService("direct-kept")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)
        for account in ["one", "two"] {
            try store.write(
                SecretRecord(
                    name: try SecretName(service: service, account: account), value: Array(account.utf8),
                    metadata: SecretMetadata(created: .now(), updated: .now())))
        }
        // In a process of its own, which has no connection yet.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [service = service as String] in
            var ok = true
            for (account, agrees) in [("one", true), ("two", false), ("absent", false), ("one", false)] {
                let (outcome, agreed) = SecretServiceDirectRead.readAgreeing(
                    try SecretName(service: service, account: account), timeout: SessionKeyring.timeout,
                    library: SecretServiceDirectRead.defaultLibrary)
                let value: [UInt8]? = if case .record(let record) = outcome { Array(record.value) } else { nil }
                let right = account == "absent" ? outcome.isUnusable : value == Array(account.utf8)
                print("\(right && agreed == agrees ? "ok" : "FAIL") \(account): \(outcome), agreed \(agreed)")
                ok = ok && right && agreed == agrees
            }
            exit(ok ? 0 : 1)
        }
        ChildCheck.report(result)
    }
}
