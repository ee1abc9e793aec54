import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultOpenBao
@testable import VaultSecretService
@testable import VaultStorage
@testable import VaultSystem

/// Store identities: each backend names itself (``StoreIdentity``), and the names refresh
/// approval records were filed under before stores had identities are kept, so that no living
/// token needs `vault trust` again after an upgrade.
@Suite("Store identity")
struct StoreIdentityTests {
    let name: SecretName
    let root: URL

    init() throws {
        name = try SecretName(service: "s", account: "deploy")
        root = try makeTemporaryDirectory(prefix: "vault-identity")
    }

    var records: String { root.appendingPathComponent("refresh-approvals").path }

    /// The record file name vault 1.x gave `name` in the store named `storeKey`, spelled out here
    /// as that code did: the SHA-256 of the key, the service and the account.
    func recordFileName(storeKey: String) -> String {
        Digest.hex("\(storeKey)\u{0}\(name.service)\u{0}\(name.account)")
    }

    func companion() -> TokenCompanion {
        TokenCompanion(
            source: .oauth(OAuthClientConfiguration(tokenURL: "https://auth.example/token", clientID: "cli")),
            refreshToken: SecureBytes("r".utf8), lifetime: 600)
    }

    /// Records an approval for `store`, and expects it under the name the old code used for
    /// `oldKey`, and found again for `reader` (the same store, opened anew).
    func expectRecord(_ store: any SecretStore, reader: any SecretStore, oldKey: String) throws {
        let approval = RefreshApproval(directory: records)
        try approval.record(companion(), for: name, in: store)
        let file = records + "/" + recordFileName(storeKey: oldKey)
        #expect(FileManager.default.fileExists(atPath: file), "no record under the old name for \(oldKey)")
        #expect(approval.state(of: companion(), for: name, in: reader) == .recorded)
        try FileManager.default.removeItem(atPath: file)
    }

    @Test("a vault file's records keep their names: its canonical path, also through a link and a fallback")
    func fileRecords() throws {
        let real = root.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = root.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real.path)
        let keys = FileKeys.identity(X25519Identity.generate(), origin: "t")
        let store = FileStore(path: real.appendingPathComponent("v.age").path, keys: keys)
        let linked = FileStore(path: link + "/v.age", keys: keys)
        let canonical = FileSystem.canonicalPath(real.appendingPathComponent("v.age").path)
        try expectRecord(store, reader: linked, oldKey: "file " + canonical)
        try expectRecord(
            FallbackStore(primary: linked, fallback: MemoryStore()), reader: store, oldKey: "file " + canonical)
        #expect(store.identity == linked.identity)
        #expect(store.identity != MemoryStore().identity)
    }

    @Test("an OpenBao mount's records keep their names: every address, sorted, and the mount")
    func openBaoRecords() throws {
        func store(_ addresses: String, mount: String = "secret") throws -> OpenBaoStore {
            let environment = ["BAO_ADDR": addresses, "BAO_TOKEN": "t", "BAO_KV_MOUNT": mount, "HOME": root.path]
            return try StoreFactory(options: GlobalOptions(), environment: environment, prompt: nil).makeOpenBaoStore()
        }
        let cluster = try store("https://b.example:8200/, https://a.example:8200")
        try expectRecord(
            cluster, reader: try store("https://a.example:8200,https://b.example:8200"),
            oldKey: "openbao https://a.example:8200 https://b.example:8200 mount secret")
        // A doubled address stays doubled in the key, as it was.
        try expectRecord(
            try store("https://a.example,https://a.example", mount: "kv"),
            reader: try store("https://a.example,https://a.example", mount: "kv"),
            oldKey: "openbao https://a.example https://a.example mount kv")
        // One address in common names the same mount; another mount is another store.
        #expect(cluster.identity == (try store("https://a.example:8200")).identity)
        #expect(cluster.identity != (try store("https://a.example:8200", mount: "kv")).identity)
        #expect(cluster.identity != (try store("https://c.example:8200")).identity)
    }

    @Test("the Secret Service and other stores keep their label as their records' name")
    func labelledRecords() throws {
        #expect(SecretServiceStore.sessionIdentity.recordKey == "secret-service")
        let memory = MemoryStore()
        try expectRecord(memory, reader: memory, oldKey: "memory")
    }
}
