import Foundation
import Testing
import VaultAge

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// The glue for migration: backend specs, the destination's keys, and `VAULT_FALLBACK`.
@Suite("Store factory: migration and fallback")
struct StoreFactoryMigrationTests {
    func factory(_ environment: [String: String]) -> StoreFactory {
        StoreFactory(options: GlobalOptions(), environment: environment, prompt: nil)
    }

    @Test("backend specs: file, file:PATH and secret-service; anything else is a usage error")
    func specs() throws {
        #expect(try BackendSpec(parsing: "file", from: .migrationDestination) == .file(path: nil))
        #expect(try BackendSpec(parsing: "file:/a/b:c.age", from: .migrationDestination) == .file(path: "/a/b:c.age"))
        #expect(try BackendSpec(parsing: "file:rel.age", from: .migrationDestination) == .file(path: "rel.age"))
        #expect(try BackendSpec(parsing: "secret-service", from: .migrationDestination) == .secretService)
        for bad in ["", "file:", "files", "secret-service:x", "keychain", "File", " file"] {
            #expect("\(bad)") { try BackendSpec(parsing: bad, from: .migrationDestination) } throws: {
                ($0 as? VaultError)?.code == .usage && ($0 as? VaultError)?.input == .migrationDestination
            }
        }
    }

    @Test("naming one store twice is a usage error, however its path is spelled")
    func sameStore() throws {
        let scratch = try ScratchFiles()
        let path = scratch.directory + "/vault.age"
        let factory = factory(["VAULT_FILE": path, "VAULT_IDENTITY": scratch.identity.encoded])
        let link = scratch.directory + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.directory)
        for (from, to) in [
            ("file", "file:\(path)"), ("file:\(scratch.directory)/./vault.age", "file"),
            ("file", "file:\(link)/vault.age"),
            ("secret-service", "secret-service"),
        ] {
            #expect("\(from) \(to)") { try factory.migrationStores(from: from, to: to) } throws: { error in
                (error as? VaultError)?.code == .usage && (error as? VaultError)?.message.contains("same store") == true
            }
        }
        let (source, destination) = try factory.migrationStores(from: "file", to: "file:\(path).new")
        #expect(source.label == "file \(path)")
        #expect(destination.label == "file \(path).new")
    }

    @Test("a destination file is unlocked with VAULT_TO_* when one is set, else with VAULT_*")
    func destinationKeys() throws {
        let scratch = try ScratchFiles()
        let sourceKey = X25519Identity.generate()
        let destinationKey = X25519Identity.generate()
        let record = SecretRecord(
            name: try SecretName(service: "vault", account: "a"), value: [1],
            metadata: SecretMetadata(created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        let base = ["VAULT_FILE": scratch.directory + "/a.age", "VAULT_IDENTITY": sourceKey.encoded]
        for (extra, key) in [([:], sourceKey), (["VAULT_TO_IDENTITY": destinationKey.encoded], destinationKey)] {
            let path = scratch.directory + "/\(key.recipient.encoded).age"
            let (_, destination) = try factory(base.merging(extra) { $1 }).migrationStores(
                from: "file", to: "file:\(path)")
            try destination.write(record)
            #expect(try FileStore(path: path, keys: .identity(key, origin: "test")).read(record.name) == record)
        }
    }

    @Test("VAULT_FALLBACK puts a fallback store behind the current one")
    func fallback() throws {
        let scratch = try ScratchFiles()
        let path = scratch.directory + "/vault.age"
        let base = ["VAULT_FILE": path, "VAULT_IDENTITY": scratch.identity.encoded]
        #expect(!(try factory(base).makeStore() is FallbackStore))
        let store = try factory(base.merging(["VAULT_FALLBACK": "file:\(path).old"]) { $1 }).makeStore()
        let fallback = try #require(store as? FallbackStore)
        #expect(fallback.primary.label == "file \(path)")
        #expect(fallback.fallback.label == "file \(path).old")
        for (text, fragment) in [("file", "names the current backend"), ("nope", "VAULT_FALLBACK is 'nope'")] {
            let environment = base.merging(["VAULT_FALLBACK": text]) { $1 }
            #expect { try factory(environment).makeStore() } throws: {
                ($0 as? VaultError)?.code == .usage && ($0 as? VaultError)?.description.contains(fragment) == true
            }
        }
    }
}
