import Foundation
import Synchronization
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultOpenBao
@testable import VaultSecretService
@testable import VaultStorage

/// One-time codes in-process: the RFC test vectors, the otpauth URI's rules, and the Vault
/// operations over a memory store (the end-to-end suite runs the binary against oathtool).
@Suite("One-time codes")
struct OneTimeCodeTests {
    /// RFC 6238 Appendix B: the seeds are the ASCII digits "1234567890" repeated to 20, 32 and 64
    /// bytes (base32 below), the codes 8 digits, the period 30 s.
    static let rfc6238Seeds: [(OneTimeCodeSeed.Algorithm, String)] = [
        (.sha1, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
        (.sha256, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA===="),
        (
            .sha512,
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA="
        ),
    ]
    static let rfc6238: [(time: Int64, sha1: String, sha256: String, sha512: String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    static func seed(_ uri: String) throws -> OneTimeCodeSeed {
        try OneTimeCodeSeed(parsing: SecureBytes(uri.utf8))
    }

    static func text(_ code: SecureBytes) -> String { String(decoding: code.unprotectedArray, as: UTF8.self) }

    @Test("RFC 6238 Appendix B: every TOTP vector, SHA-1, SHA-256 and SHA-512")
    func rfc6238Vectors() throws {
        for (algorithm, secret) in Self.rfc6238Seeds {
            let seed = try Self.seed(
                "otpauth://totp/RFC:6238?secret=\(secret)&algorithm=\(algorithm.rawValue.lowercased())&digits=8")
            #expect(seed.algorithm == algorithm)
            for vector in Self.rfc6238 {
                let (step, _) = seed.step(atMilliseconds: vector.time * 1000)
                let expected =
                    switch algorithm {
                    case .sha1: vector.sha1
                    case .sha256: vector.sha256
                    case .sha512: vector.sha512
                    }
                #expect(Self.text(seed.code(counter: step)) == expected, "\(algorithm) at \(vector.time)")
            }
        }
    }

    @Test("RFC 4226 Appendix D: the HOTP codes of counters 0 to 9")
    func rfc4226Vectors() throws {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        let seed = try Self.seed("otpauth://hotp/RFC:4226?secret=gezdgnbvgy3tqojqgezdgnbvgy3tqojq&counter=0")
        for (counter, code) in expected.enumerated() {
            #expect(Self.text(seed.code(counter: UInt64(counter))) == code, "counter \(counter)")
        }
    }

    @Test("a URI is read as issuers write it, and stored in one canonical form")
    func parsing() throws {
        let seed = try Self.seed(
            " otpauth://TOTP/ACME%20Co:alice@example.com?secret=jbswy3dpehpk3pxp&issuer=ACME%20Co&period=60&digits=7\n")
        #expect(seed.kind == .totp)
        #expect(seed.label == "ACME Co:alice@example.com")
        #expect(seed.issuer == "ACME Co")
        #expect(seed.period == 60)
        #expect(seed.digits == 7)
        #expect(seed.algorithm == .sha1)
        let canonical =
            "otpauth://totp/ACME%20Co:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co&algorithm=SHA1&digits=7&period=60"
        #expect(Self.text(seed.uri) == canonical)
        #expect(Self.text(try Self.seed(canonical).uri) == canonical, "the canonical form reads back as itself")
        // Padding is optional; given, it must fill the last group.
        #expect(try Self.seed("otpauth://totp/x?secret=GEZA").key == Array("12".utf8))
        #expect(try Self.seed("otpauth://totp/x?secret=GEZA====").key == Array("12".utf8))
        let hotp = try Self.seed("otpauth://hotp/x?secret=GEZA&counter=41&algorithm=SHA512")
        #expect(Self.text(hotp.uri) == "otpauth://hotp/x?secret=GEZA&algorithm=SHA512&digits=6&counter=41")
    }

    @Test(
        "malformed URIs are usage errors that never quote the seed",
        arguments: [
            ("https://example.com/?secret=GEZA", "not an otpauth"),
            ("otpauth://totp/x", "no secret"),
            ("otpauth://totp/x?issuer=a", "no secret"),
            ("otpauth://totp/x?secret=", "no secret"),
            ("otpauth://totp/x?secret=GEZ1", "base32"),
            ("otpauth://totp/x?secret=GEZ", "base32"),
            ("otpauth://totp/x?secret=GEZA==", "base32"),
            ("otpauth://totp/x?secret=GE=ZA", "base32"),
            ("otpauth://totp/x?secret=GEZA&algorithm=MD5", "algorithm"),
            ("otpauth://totp/x?secret=GEZA&digits=5", "digits"),
            ("otpauth://totp/x?secret=GEZA&digits=9", "digits"),
            ("otpauth://totp/x?secret=GEZA&digits=six", "digits"),
            ("otpauth://totp/x?secret=GEZA&period=0", "period"),
            ("otpauth://hotp/x?secret=GEZA", "counter"),
            ("otpauth://hotp/x?secret=GEZA&counter=-1", "counter"),
            ("otpauth://motp/x?secret=GEZA", "type"),
            ("otpauth://totp/x?secret=GEZA&secret=GEZB", "twice"),
            ("otpauth://totp/x?secret=GEZA#frag", "'#'"),
            ("otpauth://totp/a%0Ab?secret=GEZA", "label"),
        ])
    func malformed(uri: String, reason: String) throws {
        let error = #expect(throws: VaultError.self) { try Self.seed(uri) }
        #expect(error?.code == .usage)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("GEZA") == false)
        #expect(error?.message.contains("\n") == false)
    }

    /// A vault over a memory store whose HOTP counter lock lives in a temporary folder.
    static func vault(now: Int64 = 1_700_000_000) throws -> (Vault, Folder) {
        let folder = Folder(url: try makeTemporaryDirectory(prefix: "vault-otp"))
        let settings = TokenSettings(
            lockDirectory: folder.url.appendingPathComponent("locks").path, commandEnvironment: [:])
        return (
            Vault(store: MemoryStore(), now: { Timestamp(secondsSince1970: now) }, tokens: settings), folder
        )
    }

    /// Runs `body` with a fresh vault holding the seed `uri` as `service`/`account`.
    static func withSeed(
        _ uri: String, service: String = "vault", account: String, _ body: (Vault, SecretName) throws -> Void
    ) throws {
        let (vault, folder) = try Self.vault()
        defer { withExtendedLifetime(folder) {} }
        let name = try SecretName(service: service, account: account)
        try vault.addOneTimeCode(name, uri: SecureBytes(uri.utf8))
        try body(vault, name)
    }

    /// A temporary folder removed when the last reference goes.
    final class Folder {
        let url: URL
        init(url: URL) { self.url = url }
        deinit { removeTemporaryDirectory(url) }
    }

    @Test("TOTP: a code with fewer than min-valid seconds left is never handed out")
    func minimumValidity() throws {
        let (vault, folder) = try Self.vault()
        defer { withExtendedLifetime(folder) {} }
        let name = try SecretName(service: "vault", account: "totp")
        try vault.addOneTimeCode(name, uri: SecureBytes("otpauth://totp/x?secret=\(Self.rfc6238Seeds[0].1)".utf8))
        let seed = try Self.seed("otpauth://totp/x?secret=\(Self.rfc6238Seeds[0].1)")
        // 3 s left in the period of 1,111,111,110 s (step 37,037,037): with 5 required, the clock
        // is moved on by the wait, and the next step's code comes out.
        final class Clock: @unchecked Sendable {
            // Only the test's one thread reads and moves it.
            var milliseconds: Int64 = 1_111_111_137_000
            var slept: [Int64] = []
        }
        let clock = Clock()
        let fake = OneTimeCodeClock(
            now: { clock.milliseconds },
            sleep: {
                clock.slept.append($0); clock.milliseconds += $0
            })
        let code = try vault.oneTimeCode(name, minValid: 5, clock: fake)
        #expect(Self.text(code) == Self.text(seed.code(counter: 37_037_038)))
        #expect(clock.slept == [3_001])
        // With 3 s required, the current code.
        clock.milliseconds = 1_111_111_137_000
        #expect(
            Self.text(try vault.oneTimeCode(name, minValid: 3, clock: fake))
                == Self.text(seed.code(counter: 37_037_037)))
        // More than half the period is refused, whatever the clock.
        let error = #expect(throws: VaultError.self) { try vault.oneTimeCode(name, minValid: 16, clock: fake) }
        #expect(error?.code == .usage)
    }

    @Test("HOTP: each code uses the next counter, stored before the code is returned; get refuses the seed")
    func counter() throws {
        try Self.withSeed("otpauth://hotp/x?secret=\(Self.rfc6238Seeds[0].1)&counter=0", account: "hotp") {
            try Self.counter(vault: $0, name: $1)
        }
    }

    static func counter(vault: Vault, name: SecretName) throws {
        let expected = ["755224", "287082", "359152"]
        for (counter, code) in expected.enumerated() {
            #expect(Self.text(try vault.oneTimeCode(name)) == code)
            #expect(try vault.oneTimeCodeSummary(name)?.counter == UInt64(counter + 1))
        }
        let error = #expect(throws: VaultError.self) { try vault.get(name) }
        #expect(error?.code == .usage)
        #expect(error?.remedy == .askForOneTimeCode(account: "hotp"))
        #expect(try vault.info(name).oneTimeCode?.kind == .hotp)
        let plain = try SecretName(service: "vault", account: "plain")
        try vault.set(plain, value: Array("x".utf8))
        let last = try SecretName(service: "vault", account: "last")
        try vault.addOneTimeCode(
            last, uri: SecureBytes("otpauth://hotp/x?secret=GEZA&counter=18446744073709551614".utf8))
        let exhausted = #expect(throws: VaultError.self) { try vault.oneTimeCode(last) }
        #expect(exhausted?.code == .usage)
        #expect(try vault.oneTimeCodeSummary(last)?.counter == UInt64.max - 1, "nothing was stored")
        let notSeed = expectFailure(.usage) { try vault.oneTimeCode(plain) }
        #expect(notSeed?.remedy == .addOneTimeCode(account: "plain"))
    }

    @Test("export keeps the URI and its kind, and import restores both")
    func transfer() throws {
        let (vault, folder) = try Self.vault()
        defer { withExtendedLifetime(folder) {} }
        let name = try SecretName(service: "vault", account: "aws-mfa")
        try vault.addOneTimeCode(name, uri: SecureBytes("otpauth://totp/AWS?secret=GEZA&issuer=AWS".utf8))
        let exported = try TransferFormat.json.encode(try vault.records(service: "vault"))
        #expect(
            Self.text(exported)
                == "[\n  {\"name\":\"aws-mfa\",\"value\":\"otpauth://totp/AWS?secret=GEZA&issuer=AWS&algorithm=SHA1&digits=6&period=30\",\"expires\":null,\"kind\":\"totp\"}\n]\n"
        )
        let dotenv = expectFailure(.usage) {
            try TransferFormat.dotenv.encode(try vault.records(service: "vault"))
        }
        #expect(dotenv?.remedy == .useJSONFormat)
        let (other, otherFolder) = try Self.vault()
        defer { withExtendedLifetime(otherFolder) {} }
        let items = try TransferFormat.json.parse(exported.unprotectedArray, service: "vault")
        _ = try other.importSecrets(items, overwrite: false)
        let back = try #require(try other.store.read(name))
        #expect(back.metadata.kind == .totp)
        #expect(back.value == (try vault.store.read(name))?.value)
        let mismatch = #expect(throws: VaultError.self) {
            try TransferFormat.json.parse(
                Array(#"[{"name":"x","value":"otpauth://totp/x?secret=GEZA","kind":"hotp"}]"#.utf8), service: "vault")
        }
        #expect(mismatch?.code == .usage)
    }

    @Test("references: vault-otp:// stands for a code, vault:// to a seed is refused")
    func references() throws {
        try Self.withSeed("otpauth://hotp/x?secret=\(Self.rfc6238Seeds[0].1)&counter=1", service: "ci", account: "npm")
        {
            vault, _ in try Self.references(vault: vault)
        }
    }

    static func references(vault: Vault) throws {
        let reference = try SecretReference(parsing: "vault-otp://ci/npm")
        #expect(reference.isOneTimeCode)
        #expect(reference.description == "vault-otp://ci/npm")
        let rendered = try SecretTemplate.render(
            Array("a={{ vault-otp://ci/npm }} b={{vault-otp://ci/npm}}\n".utf8), vault: vault)
        #expect(Self.text(rendered) == "a=287082 b=287082\n", "one code per reference, however often it appears")
        let error = #expect(throws: VaultError.self) {
            try SecretTemplate.render(Array("{{ vault://ci/npm }}".utf8), vault: vault)
        }
        #expect(error?.code == .usage)
    }

    @Test("HOTP on OpenBao: two machines (two lock folders) of four processes each use each counter once")
    func counterAcrossMachines() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let machines = [
            Folder(url: try makeTemporaryDirectory(prefix: "vault-otp-a")),
            Folder(url: try makeTemporaryDirectory(prefix: "vault-otp-b")),
        ]
        let name = try SecretName(service: "s", account: "hotp")
        let uri = "otpauth://hotp/x?secret=\(Self.rfc6238Seeds[0].1)&counter=0"
        try Vault(store: OpenBaoStore.testStore(server, mount: mount))
            .addOneTimeCode(name, uri: SecureBytes(uri.utf8))
        let workers = 8
        let rounds = 5
        let codes = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let lockFolders = machines.map { $0.url.appendingPathComponent("locks").path }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            // Each worker is a process of its machine: a store and a vault of its own.
            let settings = TokenSettings(
                lockDirectory: lockFolders[worker % 2], storeRetryBudget: 30, commandEnvironment: [:])
            let vault = Vault(store: OpenBaoStore.testStore(server, mount: mount), tokens: settings)
            for _ in 0..<rounds {
                do {
                    let code = Self.text(try vault.oneTimeCode(name))
                    codes.withLock { $0.append(code) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let seed = try Self.seed(uri)
        let expected = (0..<UInt64(workers * rounds)).map { Self.text(seed.code(counter: $0)) }
        #expect(codes.withLock { $0 }.sorted() == expected.sorted())
        let vault = Vault(store: OpenBaoStore.testStore(server, mount: mount))
        #expect(try vault.oneTimeCodeSummary(name)?.counter == UInt64(workers * rounds))
        withExtendedLifetime(machines) {}
    }

    @Test("Secret Service: vault.kind is written for a kind, emptied when it goes, and read back")
    func secretServiceAttribute() throws {
        var record = SecretRecord(
            name: try SecretName(service: "s", account: "a"), value: Array("otpauth://totp/x?secret=GEZA".utf8),
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 1), updated: Timestamp(secondsSince1970: 2), kind: .totp))
        let written = SecretServiceItems.attributes(for: record)
        #expect(written["vault.kind"] == "totp")
        #expect(SecretServiceItems.metadata(attributes: written, created: 0, modified: 0, now: .now()).kind == .totp)
        record.metadata.kind = nil
        // KeePassXC keeps an attribute left out: a kind that goes is written empty, read as none.
        let plain = SecretServiceItems.merging(record, into: written)
        #expect(plain["vault.kind"] == "")
        #expect(SecretServiceItems.metadata(attributes: plain, created: 0, modified: 0, now: .now()).kind == nil)
        #expect(SecretServiceItems.merging(record, into: ["service": "s"])["vault.kind"] == nil)
    }
}
