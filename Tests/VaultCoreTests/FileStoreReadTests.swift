import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAge
@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// A file vault read the way `get` and `ls` read it: chunk by chunk, or whole when it must be.
@Suite("File store reads")
struct FileStoreReadTests {
    let directory: URL
    let identity = X25519Identity.generate()

    init() throws {
        directory = try makeTemporaryDirectory()
    }

    func records(_ count: Int, valueSize: Int = 40) throws -> [SecretRecord] {
        try (0..<count).map { index in
            SecretRecord(
                name: try SecretName(service: "vault", account: String(format: "name-%05d", index)),
                value: patternBytes(count: valueSize, seed: UInt64(index + 1)),
                metadata: SecretMetadata(
                    created: Timestamp(secondsSince1970: 1_700_000_000),
                    updated: Timestamp(secondsSince1970: 1_700_000_001)))
        }
    }

    /// Writes `records` as age would: a document encrypted by hand, then `transform`ed.
    func vaultFile(_ records: [SecretRecord], transform: ([UInt8]) -> [UInt8] = { $0 }) throws -> String {
        let path = directory.appendingPathComponent("vault-\(UUID().uuidString).age").path
        let file = try Age.encrypt(VaultDocument.encode(records), to: [identity.recipient])
        try Data(transform(file)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a vault of many chunks reads every secret, and lists them all")
    func manyChunks() throws {
        defer { removeTemporaryDirectory(directory) }
        let all = try records(3_000, valueSize: 60)
        let store = FileStore(path: try vaultFile(all), keys: .identity(identity, origin: "test"))
        for index in [0, 1, 1_499, 2_998, 2_999] {
            #expect(try store.read(all[index].name) == all[index])
        }
        #expect(try store.read(try SecretName(service: "vault", account: "absent")) == nil)
        #expect(try store.list(service: "vault") == all.map(\.entry))
        #expect(try store.list(service: "other").isEmpty)
    }

    @Test("an armored vault is read whole, and written back in binary")
    func armored() throws {
        defer { removeTemporaryDirectory(directory) }
        let all = try records(5)
        let path = try vaultFile(all) { Armor.encode($0) }
        let store = FileStore(path: path, keys: .identity(identity, origin: "test"))
        #expect(try store.read(all[3].name) == all[3])
        #expect(try store.list(service: nil).count == 5)
        try store.write(all[0])
        #expect(!Armor.looksArmored([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        #expect(try FileStore(path: path, keys: .identity(identity, origin: "test")).read(all[4].name) == all[4])
    }

    @Test("a damaged payload is damage, never 'not found', even after the secret was seen")
    func damagedLastChunk() throws {
        defer { removeTemporaryDirectory(directory) }
        let all = try records(2_000)
        let path = try vaultFile(all) { file in
            var altered = file
            altered[altered.count - 3] ^= 0x40
            return altered
        }
        let store = FileStore(path: path, keys: .identity(identity, origin: "test"))
        for name in [all[0].name, try SecretName(service: "vault", account: "absent")] {
            expectFailure(.damaged) { try store.read(name) }
        }
    }

    @Test("a passphrase vault unwraps its key once per command, even if another writer came between")
    func passphraseOnce() throws {
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("passphrase.age").path
        let passphrase = SecureBytes("correct horse".utf8)
        final class Counter: @unchecked Sendable {
            // Only the test's own thread touches it.
            var calls = 0
        }
        func counted(_ counter: Counter) -> FileKeys {
            let keys = FileKeys.passphrase(passphrase, workFactor: 10, origin: "test")
            return FileKeys(
                origin: keys.origin,
                identities: { () throws(VaultError) in
                    counter.calls += 1
                    return try keys.identities()
                }, recipientsForNewFile: keys.recipientsForNewFile)
        }
        let all = try records(3)
        try Vault(store: FileStore(path: path, keys: counted(Counter()))).set(all[0].name, value: all[0].value)

        let counter = Counter()
        let vault = Vault(store: FileStore(path: path, keys: counted(counter)))
        try vault.set(all[1].name, value: all[1].value)  // reads the old record, then rewrites the file
        #expect(counter.calls == 1)
        #expect(try vault.get(all[0].name).value == all[0].value)
        try Vault(store: FileStore(path: path, keys: counted(Counter()))).set(all[2].name, value: all[2].value)
        try vault.set(all[0].name, value: [7])  // the file changed since this store last read it
        #expect(counter.calls == 1)
        #expect(try vault.list(service: "vault").count == 3)
    }
}
