import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultOpenBao
@testable import VaultStorage
@testable import VaultSystem

/// The OpenBao store against a real dev server: layout, escapes, interop with the bao CLI,
/// deletion, and failures.
@Suite("OpenBao store")
struct OpenBaoStoreTests {
    @Test("names that do not map to a KV path are escaped, and every name round-trips")
    func escapes() throws {
        let plain = ["a", "ci/npm", "a b/c~d", "日本語/トークン", "x.y", "..a", "a..", ".hidden/x"]
        let escaped = [
            "..", ".", "a//b", "a/", "/a", "a/./b", "a/../b", "_vault64_x", "/", "no\u{00A0}break", "em\u{2003}",
        ]
        for name in plain {
            #expect(OpenBaoPath.mapsPlainly(name, nested: true), "\(name)")
            #expect(OpenBaoPath.path(of: try SecretName(service: "s", account: name)) == "vault/s/" + name)
        }
        for name in escaped {
            #expect(!OpenBaoPath.mapsPlainly(name, nested: true), "\(name)")
            let path = OpenBaoPath.path(of: try SecretName(service: "s", account: name))
            #expect(path.hasPrefix("vault/s/_vault64_") && !path.dropFirst(8).contains("/"), "\(path)")
        }
        #expect(OpenBaoPath.folder(service: "a/b").hasPrefix("vault/_vault64_"))

        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let services = ["svc", "with/slash", ".."]
        for service in services {
            for name in plain + escaped {
                try store.write(record(service, name, Array("v:\(name)".utf8)))
            }
        }
        for service in services {
            let listed = try store.list(service: service).map(\.name.account)
            #expect(listed == (plain + escaped).sorted(), "service \(service)")
            for name in plain + escaped {
                #expect(
                    try store.read(try SecretName(service: service, account: name))?.value == Array("v:\(name)".utf8))
            }
        }
        #expect(Set(try store.list(service: nil).map(\.name.service)) == Set(services))
    }

    @Test("the bao CLI reads what vault wrote, and vault reads what the bao CLI wrote")
    func interop() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)

        let put = try server.bao(["kv", "put", "-mount=\(mount)", "vault/github/ci/token", "value=ghp_from_bao ✓"])
        try #require(put.status == 0, "\(put.stderr)")
        let name = try SecretName(service: "github", account: "ci/token")
        #expect(try store.read(name)?.value == Array("ghp_from_bao ✓".utf8))
        #expect(try store.list(service: "github").map(\.name) == [name])

        try store.write(record("github", "written", Array("from vault".utf8)))
        let get = try server.bao(["kv", "get", "-mount=\(mount)", "-field=value", "vault/github/written"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdoutText == "from vault")

        let binary: [UInt8] = [0, 0xFF, 0x80, 0x0A, 0x41]
        try store.write(record("github", "binary", binary))
        let encoded = try server.bao(["kv", "get", "-mount=\(mount)", "-field=value_base64", "vault/github/binary"])
        #expect(encoded.stdoutText == Data(binary).base64EncodedString())
        #expect(try store.read(try SecretName(service: "github", account: "binary"))?.value == binary)
    }

    @Test("rm removes every version; a version deleted with the bao CLI reads as absent")
    func deletion() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let a = try record("s", "a", [1])
        try store.write(a)
        try store.write(try record("s", "a", [2]))
        #expect(try store.delete(a.name))
        #expect(try store.read(a.name) == nil)
        #expect(try store.list(service: "s").isEmpty)
        let metadata = try server.bao(["kv", "metadata", "get", "-mount=\(mount)", "vault/s/a"])
        #expect(metadata.status != 0, "the metadata and its versions are gone")
        #expect(try store.delete(a.name) == false)

        let b = try record("s", "b", [3])
        try store.write(b)
        let deleted = try server.bao(["kv", "delete", "-mount=\(mount)", "vault/s/b"])
        try #require(deleted.status == 0, "\(deleted.stderr)")
        #expect(try store.read(b.name) == nil)
        #expect(try store.list(service: "s").isEmpty)
        try store.write(try record("s", "b", [4]))
        #expect(try store.read(b.name)?.value == [4])
    }

    @Test("ls lists the same with one detailed scan as with a listing and a metadata read per secret")
    func scanAndFallback() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        for (service, name) in [("s", "a"), ("s", "dir/b"), ("s", "a/../b"), ("t", "c"), ("with/slash", "d")] {
            var written = try record(service, name, [1])
            written.metadata.expires = Timestamp(secondsSince1970: 1_900_000_000)
            try store.write(written)
        }
        try store.write(try record("s", "gone", [2]))
        let deleted = try server.bao(["kv", "delete", "-mount=\(mount)", "vault/s/gone"])
        try #require(deleted.status == 0, "\(deleted.stderr)")

        // A token that may list and read but not scan: the store lists folder by folder.
        let policy = "path \"\(mount)/*\" { capabilities = [\"read\", \"list\"] }"
        let written = try runTool(
            server.bao, ["policy", "write", "list-\(mount)", "-"], input: Array(policy.utf8),
            environment: server.environment)
        try #require(written.status == 0, "\(written.stderr)")
        let token = try server.bao(["token", "create", "-policy=list-\(mount)", "-field=token"]).stdoutText
        let limited = OpenBaoStore.testStore(server, mount: mount, token: token)

        let deadline = Deadline(seconds: 10)
        #expect(try store.scan(service: nil, deadline: deadline) != nil, "the root token may scan")
        #expect(try limited.scan(service: nil, deadline: deadline) == nil, "this token may not")
        for service in [nil, "s", "with/slash", "empty"] {
            let scanned = try store.list(service: service)
            #expect(scanned == (try limited.list(service: service)), "service \(service ?? "(all)")")
            #expect(scanned.allSatisfy { $0.metadata.expires == Timestamp(secondsSince1970: 1_900_000_000) })
        }
        #expect(try store.list(service: nil).map(\.name.account) == ["a", "a/../b", "dir/b", "c", "d"])
        #expect(try store.list(service: "empty").isEmpty)
    }

    @Test("a write that raced another writer fails with a conflict instead of losing its update")
    func checkAndSet() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let first = try record("s", "raced", Array("one".utf8))
        try store.write(first)
        // What another machine does between this store's version check and its write.
        store.beforeWrite = {
            _ = try? server.bao(["kv", "put", "-mount=\(mount)", "vault/s/raced", "value=other"])
        }
        let error = try #require(throws: VaultError.self) {
            try store.write(try record("s", "raced", Array("two".utf8)))
        }
        #expect(error.code == .conflict)
        store.beforeWrite = nil
        #expect(try store.read(first.name)?.value == Array("other".utf8))
    }

    @Test("unreachable, hanging, refused and sealed servers fail with their exit codes, naming the server")
    func failures() throws {
        let server = try OpenBaoDevServer.shared()
        let name = try SecretName(service: "s", account: "x")

        let closed = try freeLoopbackPort()
        // Refused connections are tried again until the timeout: keep it short.
        let unreachable = OpenBaoStore.testStore(server, addresses: ["http://127.0.0.1:\(closed)"], timeout: 1)
        let refused = try #require(throws: VaultError.self) { try unreachable.read(name) }
        #expect(refused.code == .unavailable)
        #expect(refused.message.contains("127.0.0.1:\(closed)"))
        #expect(!refused.message.contains(server.token))

        let silent = try HTTPTestServer.shared().silentPort
        let hanging = OpenBaoStore.testStore(server, addresses: ["http://127.0.0.1:\(silent)"], timeout: 1)
        let started = Date()
        let timedOut = try #require(throws: VaultError.self) { try hanging.write(try record("s", "x", [1])) }
        #expect(timedOut.code == .unavailable)
        #expect(timedOut.message.contains("did not answer in time"), "\(timedOut.message)")
        // The listener never answers: the bound only catches a wait without a deadline; a loaded
        // machine can add seconds to the 1 s timeout, so it says nothing about how late it fired.
        #expect(Date().timeIntervalSince(started) < 60)

        let badToken = OpenBaoStore.testStore(server, token: "not-a-token")
        let denied = try #require(throws: VaultError.self) { try badToken.read(name) }
        #expect(denied.code == .cannotUnlock)
        #expect(denied.message.contains(server.address) && !denied.message.contains("not-a-token"))

        let sealed = OpenBaoStore.testStore(server, addresses: [try SealedOpenBao.shared()])
        let sealedError = try #require(throws: VaultError.self) { try sealed.read(name) }
        #expect(sealedError.code == .unavailable)
        #expect(sealedError.message.contains("sealed"))
    }

    @Test("with several addresses, a node that refuses connections is skipped")
    func nextAddress() throws {
        let server = try OpenBaoDevServer.shared()
        let closed = try freeLoopbackPort()
        let store = OpenBaoStore.testStore(server, addresses: ["http://127.0.0.1:\(closed)", server.address])
        let written = try record("ha-\(UUID().uuidString.prefix(8))", "x", [7])
        try store.write(written)
        #expect(try store.read(written.name)?.value == [7])
        #expect(try store.delete(written.name))
    }

    func record(_ service: String, _ account: String, _ value: [UInt8]) throws -> SecretRecord {
        SecretRecord(
            name: try SecretName(service: service, account: account), value: value,
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 1_700_000_000), updated: Timestamp(secondsSince1970: 1_700_000_100)
            ))
    }
}

/// An OpenBao server that was never initialised, so it is sealed: started once per test process.
enum SealedOpenBao {
    private static let started = Result { () throws -> String in
        let server = try OpenBaoDevServer.shared()
        let port = try freeLoopbackPort()
        let directory = try makeTemporaryDirectory()
        let config = directory.appendingPathComponent("sealed.hcl")
        try """
        storage "inmem" {}
        listener "tcp" {
          address = "127.0.0.1:\(port)"
          tls_disable = true
        }
        disable_mlock = true
        """.write(to: config, atomically: true, encoding: .utf8)
        let pid = try spawnChild(server.bao, ["server", "-config=\(config.path)"], environment: nil, input: .null)
        BackgroundProcesses.register(pid)
        guard waitForLoopbackPort(port, timeout: 30) else {
            throw OpenBaoTestError(description: "the sealed OpenBao did not listen on 127.0.0.1:\(port)")
        }
        return "http://127.0.0.1:\(port)"
    }

    /// The sealed server's address.
    static func shared() throws -> String { try started.get() }
}
