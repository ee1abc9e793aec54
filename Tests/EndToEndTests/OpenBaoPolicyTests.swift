import Foundation
import Testing
import VaultTestSupport

/// `vault set` against OpenBao under a token policy: all or nothing.
@Suite("OpenBao policies")
struct OpenBaoPolicyTests {
    /// A token of a new policy on the dev server holding `rules` (`MOUNT` replaced).
    func token(_ server: OpenBaoDevServer, mount: String, rules: String) throws -> String {
        let name = "vault-test-" + UUID().uuidString.prefix(8).lowercased()
        let file = try makeTemporaryDirectory().appendingPathComponent("policy.hcl")
        defer { removeTemporaryDirectory(file.deletingLastPathComponent()) }
        try rules.replacingOccurrences(of: "MOUNT", with: mount).write(to: file, atomically: true, encoding: .utf8)
        let written = try server.bao(["policy", "write", name, file.path])
        try #require(written.status == 0, "\(written.stderr)")
        let created = try server.bao(["token", "create", "-policy=\(name)", "-field=token"])
        try #require(created.status == 0, "\(created.stderr)")
        return created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func runner(_ server: OpenBaoDevServer, mount: String, token: String) throws -> VaultRunner {
        var runner = try VaultRunner()
        runner.environment.merge(
            [
                "BAO_ADDR": server.address, "BAO_TOKEN": token, "BAO_KV_MOUNT": mount, "VAULT_TIMEOUT": "10",
                "VAULT_BACKEND": "openbao",
            ]) { $1 }
        return runner
    }

    func stored(_ server: OpenBaoDevServer, mount: String, _ name: String) throws -> ToolResult {
        try server.bao(["kv", "get", "-mount=\(mount)", "-field=value", "vault/vault/\(name)"])
    }

    @Test("a policy without 'patch' on the metadata: set fails naming it, and the value is not changed")
    func metadataForbidden() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let root = try runner(server, mount: mount, token: server.token)
        defer { root.cleanUp() }
        try root.run(["set", "limited"], stdin: Array("before".utf8)).expectSuccess()

        let limited = try token(
            server, mount: mount,
            rules: """
                path "MOUNT/data/vault/*" { capabilities = ["create", "read", "update"] }
                path "MOUNT/metadata/vault/*" { capabilities = ["read", "list"] }
                """)
        let user = try runner(server, mount: mount, token: limited)
        defer { user.cleanUp() }
        let refused = try user.run(["set", "limited", "--expires-in", "1h"], stdin: Array("after".utf8))
        refused.expectFailure(4, "'patch' on \(mount)/metadata/vault/vault/limited")
        #expect(!refused.stderr.contains(limited))
        #expect(try stored(server, mount: mount, "limited").stdoutText == "before")
        let versions = try server.bao([
            "kv", "metadata", "get", "-mount=\(mount)", "-format=json", "vault/vault/limited",
        ])
        #expect(versions.stdoutText.contains("\"current_version\": 1"), "\(versions.stdoutText)")

        // A new secret is not created either.
        try user.run(["set", "fresh"], stdin: Array("new".utf8)).expectFailure(4, "'patch'")
        #expect(try stored(server, mount: mount, "fresh").status != 0)
        // Reading still works under that policy.
        #expect(try user.run(["get", "limited"]).stdoutText == "before")
    }

    @Test("under the documented policy, set records vault's times and the expiry")
    func documentedPolicy() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let user = try token(
            server, mount: mount,
            rules: """
                path "MOUNT/data/vault/*"     { capabilities = ["create", "read", "update", "delete"] }
                path "MOUNT/metadata/vault/*" { capabilities = ["read", "list", "delete", "patch", "update"] }
                path "MOUNT/metadata/vault"   { capabilities = ["list"] }
                """)
        let runner = try runner(server, mount: mount, token: user)
        defer { runner.cleanUp() }
        try runner.run(["set", "normal", "--expires-in", "1h"], stdin: Array("v1".utf8)).expectSuccess()
        try runner.run(["set", "normal", "--expires-in", "2h"], stdin: Array("v2".utf8)).expectSuccess()
        #expect(try stored(server, mount: mount, "normal").stdoutText == "v2")
        let metadata = try server.bao([
            "kv", "metadata", "get", "-mount=\(mount)", "-format=json", "vault/vault/normal",
        ])
        let json = try JSONSerialization.jsonObject(with: Data(metadata.stdout)) as? [String: Any]
        let custom = (json?["data"] as? [String: Any])?["custom_metadata"] as? [String: Any]
        #expect(custom?["vault_version"] as? String == "2", "\(metadata.stdoutText)")
        for key in ["vault_created", "vault_updated", "vault_expires"] {
            #expect((custom?[key] as? String)?.isEmpty == false, "\(key): \(metadata.stdoutText)")
        }
        #expect(try runner.run(["get", "normal"]).stdoutText == "v2")
    }
}
