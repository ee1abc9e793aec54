import Foundation
import Testing
import VaultAge
import VaultCore
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultStorage

/// Damaged and hostile vault files, through the file store in this process (thousands of them;
/// `HostileFileEndToEndTests` runs a sample through the binary): every one is a `.damaged` error,
/// never a crash, never a record, never `.cannotUnlock` when the header record proves damage, and
/// a failing write or delete leaves the file byte for byte as it was.
@Suite("Hostile and damaged files")
struct HostileFileTests {
    /// A vault with a few records, its identity, and its header record (`<file>.lock`).
    struct Sample {
        let directory: URL
        let path: String
        let keys: FileKeys
        let file: [UInt8]
        let lock: [UInt8]
        let name: SecretName

        init(keys: FileKeys) throws {
            directory = try makeTemporaryDirectory()
            path = directory.appendingPathComponent("vault.age").path
            self.keys = keys
            let store = FileStore(path: path, keys: keys)
            name = try SecretName(service: "vault", account: "token")
            let time = SecretMetadata(created: Timestamp(secondsSince1970: 1), updated: Timestamp(secondsSince1970: 2))
            try store.write(SecretRecord(name: name, value: Array("the secret value".utf8), metadata: time))
            try store.write(
                SecretRecord(name: try SecretName(service: "ci", account: "npm"), value: [0, 1, 2], metadata: time))
            file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            lock = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".lock")))
        }

        func cleanUp() { removeTemporaryDirectory(directory) }

        /// Writes `bytes` as the vault file (and the header record, unless `withRecord` is false),
        /// then runs every store operation on it. Returns the error codes seen.
        func attack(_ bytes: [UInt8], withRecord: Bool = true, _ note: @autoclosure () -> String) throws -> Set<
            VaultError.Code
        > {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            if withRecord {
                try Data(lock).write(to: URL(fileURLWithPath: path + ".lock"))
            } else {
                try? FileManager.default.removeItem(atPath: path + ".lock")
            }
            let store = FileStore(path: path, keys: keys)
            var codes: Set<VaultError.Code> = []
            func expectFailure<T>(_ what: String, _ body: () throws(VaultError) -> T) {
                do {
                    _ = try body()
                    Issue.record("\(note()): \(what) succeeded on a damaged file")
                } catch {
                    codes.insert(error.code)
                    #expect(!error.message.contains("the secret value"), "\(note()): \(what) leaked plaintext")
                }
            }
            expectFailure("read") { () throws(VaultError) in try store.read(name) }
            expectFailure("list") { () throws(VaultError) in try store.list(service: nil) }
            let record = SecretRecord(
                name: name, value: [9],
                metadata: SecretMetadata(
                    created: Timestamp(secondsSince1970: 3), updated: Timestamp(secondsSince1970: 3)))
            expectFailure("write") { () throws(VaultError) in try store.write(record) }
            expectFailure("delete") { () throws(VaultError) in try store.delete(name) }
            let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(after == bytes, "\(note()): a failed write changed the file")
            return codes
        }
    }

    static let identity = X25519Identity.generate()

    /// The byte range of the recipient stanzas (after the version line, before the MAC line).
    static func stanzaRange(_ file: [UInt8]) -> Range<Int> {
        let start = file.firstIndex(of: 0x0A)! + 1
        let header = (try? Age.header(of: file)) ?? file
        let macLine = header[..<(header.count - 1)].lastIndex(of: 0x0A)! + 1
        return start..<macLine
    }

    @Test("every truncation and every byte with a flipped bit is damage (exit 6), with the header record")
    func truncationsAndFlips() throws {
        let sample = try Sample(keys: .identity(Self.identity, origin: "test"))
        defer { sample.cleanUp() }
        var mutations = 0
        for length in 0..<sample.file.count {
            let codes = try sample.attack(Array(sample.file.prefix(length)), "truncated to \(length)")
            #expect(codes == [.damaged], "truncated to \(length): \(codes)")
            mutations += 1
        }
        for offset in sample.file.indices {
            for bit in offset < 200 ? Array(0..<8) : [offset % 8] {
                var damaged = sample.file
                damaged[offset] ^= 1 << bit
                let codes = try sample.attack(damaged, "bit \(bit) of byte \(offset) flipped")
                #expect(codes == [.damaged], "bit \(bit) of byte \(offset): \(codes)")
                mutations += 1
            }
        }
        print(
            "hostile files: \(mutations) truncated or bit-flipped identity vaults, each read, listed, written and deleted"
        )
    }

    @Test("without a header record, only a changed recipient stanza may read as a wrong key (exit 4)")
    func flipsWithoutRecord() throws {
        let sample = try Sample(keys: .identity(Self.identity, origin: "test"))
        defer { sample.cleanUp() }
        let stanzas = Self.stanzaRange(sample.file)
        for offset in sample.file.indices {
            var damaged = sample.file
            damaged[offset] ^= 1 << (offset % 8)
            let codes = try sample.attack(damaged, withRecord: false, "byte \(offset) flipped, no record")
            let allowed: Set<VaultError.Code> = stanzas.contains(offset) ? [.damaged, .cannotUnlock] : [.damaged]
            #expect(codes.count == 1 && codes.isSubset(of: allowed), "byte \(offset): \(codes)")
        }
    }

    @Test("a passphrase vault: truncations and flips in the header are damage; no work factor runs unbounded")
    func passphraseVault() throws {
        // A low ceiling on the work factor keeps flips of "10" into "18" from costing seconds each.
        let passphrase = SecureBytes("hostile".utf8)
        let keys = FileKeys(
            origin: "test passphrase", identities: { [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 12)] },
            recipientsForNewFile: { [ScryptRecipient(passphrase: passphrase, workFactor: 10)] })
        let sample = try Sample(keys: keys)
        defer { sample.cleanUp() }
        let headerLength = try Age.header(of: sample.file).count
        var mutations = 0
        for offset in 0..<(headerLength + 20) {
            var damaged = sample.file
            damaged[offset] ^= 1 << (offset % 8)
            #expect(try sample.attack(damaged, "byte \(offset) flipped") == [.damaged], "byte \(offset)")
            #expect(try sample.attack(Array(sample.file.prefix(offset)), "truncated to \(offset)") == [.damaged])
            mutations += 2
        }
        print("hostile files: \(mutations) damaged passphrase vaults")
    }

    /// The time limit guards against a hang (scrypt at a huge work factor), not for speed.
    @Test("scrypt work factors: zero, malformed and huge ones are damage", .timeLimit(.minutes(2)))
    func workFactors() throws {
        let sample = try Sample(keys: .passphrase(SecureBytes("pw".utf8), workFactor: 10, origin: "test"))
        defer { sample.cleanUp() }
        let text = String(decoding: sample.file, as: UTF8.self)
        for factor in [
            "0", "00", "010", "-1", "+9", "23", "30", "62", "63", "64", "99999999999999999999", "1e3", "ten", "",
        ] {
            let replaced = text.replacingOccurrences(of: " 10\n", with: factor.isEmpty ? "\n" : " \(factor)\n")
            let codes = try sample.attack(Array(replaced.utf8), "work factor '\(factor)'")
            #expect(codes == [.damaged], "work factor '\(factor)': \(codes)")
        }
    }

    /// The time limit guards against a hang, not for speed (speed: make bench).
    @Test(
        "oversized headers are damage: a 100 MB line, two million stanzas, 1,025 X25519 stanzas",
        .timeLimit(.minutes(5)))
    func oversizedHeaders() throws {
        let sample = try Sample(keys: .identity(Self.identity, origin: "test"))
        defer { sample.cleanUp() }
        let version = Array("age-encryption.org/v1\n".utf8)
        let mac = Array("--- \(String(repeating: "A", count: 43))\n".utf8)
        let share = "-> X25519 " + String(repeating: "A", count: 43) + "\n" + String(repeating: "A", count: 43) + "\n"
        let cases: [(String, [UInt8])] = [
            (
                "100 MB argument line",
                version + Array("-> X25519 ".utf8) + [UInt8](repeating: 0x41, count: 100_000_000) + [0x0A]
            ),
            ("100 MB without a newline", version + [UInt8](repeating: 0x41, count: 100_000_000)),
            (
                "100 MB body line",
                version + Array("-> X25519 abc\n".utf8) + [UInt8](repeating: 0x41, count: 100_000_000) + [0x0A] + mac
            ),
            (
                "two million empty stanzas",
                version + Array(repeating: Array("-> a\n\n".utf8), count: 2_000_000).flatMap { $0 } + mac
            ),
            ("1,025 X25519 stanzas", version + Array(String(repeating: share, count: 1025).utf8) + mac),
        ]
        for (label, bytes) in cases {
            let codes = try sample.attack(bytes, label)
            #expect(codes == [.damaged], "\(label): \(codes)")
        }
    }

    @Test("trailing garbage, wrong recipient types and a valid age file that holds no vault document are damage")
    func notVaultFiles() throws {
        let sample = try Sample(keys: .identity(Self.identity, origin: "test"))
        defer { sample.cleanUp() }
        let recipient = Self.identity.recipient
        var cases: [(String, [UInt8])] = [
            ("one trailing byte", sample.file + [0]),
            ("a trailing newline", sample.file + [0x0A]),
            ("a second copy appended", sample.file + sample.file),
            (
                "an ssh-ed25519 stanza only",
                Array(
                    "age-encryption.org/v1\n-> ssh-ed25519 abc AAAA\nAAAA\n--- \(String(repeating: "A", count: 43))\n"
                        .utf8) + [UInt8](repeating: 1, count: 40)
            ),
            (
                "an X25519 stanza with two arguments",
                Array(
                    "age-encryption.org/v1\n-> X25519 AAAA AAAA\nAAAA\n--- \(String(repeating: "A", count: 43))\n".utf8)
            ),
            (
                "scrypt next to X25519",
                Array(
                    "age-encryption.org/v1\n-> X25519 AAAA\nAAAA\n-> scrypt AAAAAAAAAAAAAAAAAAAAAA 10\nAAAA\n--- \(String(repeating: "A", count: 43))\n"
                        .utf8)
            ),
            (
                "armor around nothing",
                Array("-----BEGIN AGE ENCRYPTED FILE-----\n-----END AGE ENCRYPTED FILE-----\n".utf8)
            ),
            ("a text file", Array("hello\n".utf8)),
            ("empty", []),
        ]
        for document in [
            "just text\n", "", "{\"vault\":2}\n", "{\"vault\":1}", "{\"vault\":1}\n{\"service\":\"s\"}\n",
            "\u{FEFF}{\"vault\":1}\n",
            "{\"vault\":1}\n{\"service\":\"vault\",\"account\":\"token\",\"value\":\"!!\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n",
        ] {
            cases.append(
                ("the document \(document.debugDescription)", try Age.encrypt(Array(document.utf8), to: [recipient])))
        }
        for (label, bytes) in cases {
            #expect(try sample.attack(bytes, label) == [.damaged], "\(label)")
        }
    }
}
