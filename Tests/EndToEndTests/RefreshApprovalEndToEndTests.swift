import Foundation
import Testing
import VaultAge
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a party that can write a store but not read a secret can make a reader do: nothing
/// (docs/design.md, "Who can write a store"). Companions are planted through each backend's own
/// way in (a write-only OpenBao token, `secret-tool store`, a team age file rewritten with an
/// added recipient), pointing at a loopback listener that counts connections, or at a command
/// that would leave a marker. The approved paths, which need the shared OAuth server and its
/// counters, are in OAuthRefreshApprovalTests.swift (serialized with the other OAuth tests).
@Suite("Refresh approval end to end", .serialized)
struct RefreshApprovalEndToEndTests {
    /// The companions an attacker plants: a token endpoint on `listener` that would receive the
    /// client secret `db-password`, and a command that would touch `marker`.
    static func oauthCompanion(_ listener: SilentListener) -> String {
        #"{"kind":"oauth","token_url":"http://127.0.0.1:\#(listener.port)/token","client_id":"x","client_secret_name":"db-password","refresh_token":"r"}"#
    }

    static func commandCompanion(_ marker: String) -> String {
        #"{"kind":"command","command":"touch \#(marker); echo owned"}"#
    }

    /// The reader's secrets: a password and a plain secret with an expiry, due for refresh as soon
    /// as a companion appears (30 s is within the default 60 s skew).
    static func storeVictimSecrets(_ vault: VaultRunner) throws {
        try vault.run(["set", "db-password"], stdin: Array("hunter2".utf8)).expectSuccess()
        try vault.run(["set", "deploy", "--expires-in", "30s"], stdin: Array("plain-deploy".utf8)).expectSuccess()
        try vault.run(["set", "deploy2", "--expires-in", "30s"], stdin: Array("plain-deploy2".utf8)).expectSuccess()
    }

    /// Plants an OAuth companion aimed at a listener over `deploy` and a command companion over
    /// `deploy2`, through `plant`, then expects both reads refused.
    static func plantBothAndExpectRefused(
        _ vault: VaultRunner, plant: (String, String) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let listener = try SilentListener()
        let marker = vault.path("command-ran")
        try plant("deploy", Self.oauthCompanion(listener))
        try plant("deploy2", Self.commandCompanion(marker))
        try expectRefused(
            vault, "deploy", listener: listener, marker: marker, plain: "plain-deploy", sourceLocation: sourceLocation)
        try expectRefused(
            vault, "deploy2", listener: listener, marker: marker, plain: "plain-deploy2",
            sourceLocation: sourceLocation)
    }

    /// A read of a token with a planted companion: exit 6 naming the remedy, nothing on stdout,
    /// nothing sent, nothing run; the plain value is still there for `--allow-expired`.
    static func expectRefused(
        _ vault: VaultRunner, _ name: String, listener: SilentListener, marker: String, plain: String,
        fragment: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let got = try vault.run(["get", name])
        got.expectFailure(6, fragment ?? "vault trust \(name)", sourceLocation: sourceLocation)
        #expect(!got.stderr.contains("hunter2"), sourceLocation: sourceLocation)
        #expect(
            listener.takeConnections() == 0, "a request reached the planted endpoint", sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: marker), "the planted command ran", sourceLocation: sourceLocation)
        let allowed = try vault.run(["get", name, "--allow-expired"])
        #expect(allowed.status == 0 && allowed.stdoutText == plain, "\(allowed.stderr)", sourceLocation: sourceLocation)
    }

    @Test("OpenBao: companions written with a create/update-only token refresh nothing")
    func openBao() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        var vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        vault.environment["VAULT_BACKEND"] = "openbao"
        vault.environment["BAO_ADDR"] = server.address
        vault.environment["BAO_TOKEN"] = server.token
        vault.environment["BAO_KV_MOUNT"] = mount
        vault.environment["VAULT_TIMEOUT"] = "3"
        try Self.storeVictimSecrets(vault)

        // The attacker: a token that may only create and update under vault's folder.
        let policy = "path \"\(mount)/data/vault/*\" { capabilities = [\"create\", \"update\"] }"
        let written = try runTool(
            server.bao, ["policy", "write", "writer-\(mount)", "-"], input: Array(policy.utf8),
            environment: server.environment)
        #expect(written.status == 0, "\(written.stderr)")
        let created = try server.bao(["token", "create", "-policy=writer-\(mount)", "-field=token"])
        let writer = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.status == 0 && !writer.isEmpty)
        let base = "\(server.address)/v1/\(mount)/data/vault/\(vault.service)"
        func curl(_ arguments: [String]) throws -> ToolResult {
            try runTool("/usr/bin/curl", ["-s", "-H", "X-Vault-Token: \(writer)"] + arguments, environment: [:])
        }
        // It cannot read a secret...
        let read = try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/db-password"])
        #expect(read.stdoutText == "403")
        // ...but it can write a companion.
        func plant(_ name: String, _ companion: String) throws {
            let body = try JSONSerialization.data(withJSONObject: ["data": ["value": companion]])
            let put = try curl(
                [
                    "-f", "-X", "POST", "--data-binary", String(decoding: body, as: UTF8.self),
                    "\(base)/.vault-token/\(name)",
                ])
            #expect(put.status == 0, "\(put.stderr)")
        }
        try Self.plantBothAndExpectRefused(vault, plant: plant)
        let shown = try vault.run(["show", "deploy"])
        #expect(shown.stdoutText.contains("trusted: no"), "\(shown.stdoutText)")
    }

    @Test(
        "a recorded approval decides: VAULT_REFRESH_ORIGINS does not approve a companion repointed to a listed origin")
    func recordDecides() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        var vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        vault.environment.merge(
            [
                "VAULT_BACKEND": "openbao", "BAO_ADDR": server.address, "BAO_TOKEN": server.token,
                "BAO_KV_MOUNT": mount, "VAULT_TIMEOUT": "3",
            ]) { $1 }
        let legit = try SilentListener()
        let attacker = try SilentListener()
        try vault.run(["set", "deploy.client-secret"], stdin: Array("legit-secret".utf8)).expectSuccess()
        // This machine imported `deploy` for the legitimate endpoint: that is its record.
        try vault.run(
            [
                "oauth", "import", "deploy", "--token-url", "http://127.0.0.1:\(legit.port)/token", "--client-id",
                "legit-client", "--client-secret-name", "deploy.client-secret",
            ], stdin: Array(#"{"access_token":"a","expires_in":30,"refresh_token":"r"}"#.utf8)
        ).expectSuccess()
        // A store writer repoints it to another tenant of an origin this machine lists, with the
        // conventional client secret name the list allows.
        let companion =
            #"{"kind":"oauth","token_url":"http://127.0.0.1:\#(attacker.port)/attacker-tenant/token","client_id":"attacker-client","client_secret_name":"deploy.client-secret","refresh_token":"r"}"#
        let planted = try server.bao([
            "kv", "put", "-mount=\(mount)", "vault/\(vault.service)/.vault-token/deploy", "value=\(companion)",
        ])
        try #require(planted.status == 0, "\(planted.stderr)")
        let env = ["VAULT_REFRESH_ORIGINS": "http://127.0.0.1:\(attacker.port)"]
        let got = try vault.run(["get", "deploy"], env: env)
        got.expectFailure(6, "changed since it was approved")
        #expect(!got.stderr.contains("legit-secret"))
        #expect(attacker.takeConnections() == 0, "the client secret was sent to the listed origin")
        #expect(legit.takeConnections() == 0)
        #expect(try vault.run(["show", "deploy"], env: env).stdoutText.contains("trusted: no"))
    }

    @Test("Secret Service: companions stored by another program on the bus refresh nothing")
    func secretService() throws {
        var vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try SessionKeyring.require(&vault)
        vault.environment["VAULT_BACKEND"] = "secret-service"
        vault.environment["VAULT_TIMEOUT"] = "3"
        defer { _ = try? vault.run(["rm", "deploy"]) }
        defer { _ = try? vault.run(["rm", "deploy2"]) }
        defer { _ = try? vault.run(["rm", "db-password"]) }
        try Self.storeVictimSecrets(vault)
        func plant(_ name: String, _ companion: String) throws {
            let stored = try runTool(
                "/usr/bin/secret-tool",
                ["store", "--label=planted", "service", vault.service, "username", ".vault-token/\(name)"],
                input: Array(companion.utf8), environment: vault.environment)
            #expect(stored.status == 0, "\(stored.stderr)")
        }
        try Self.plantBothAndExpectRefused(vault, plant: plant)
    }

    @Test("age file: a team file rewritten with an added recipient stops the refresh, and so does its companion")
    func ageFile() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try Self.storeVictimSecrets(vault)
        let team = try X25519Identity(vault.environment["VAULT_IDENTITY"]!)
        let attacker = X25519Identity.generate()
        let listener = try SilentListener()
        let marker = vault.path("command-ran")

        // The attacker cannot read the file; it writes a new one to the team's key and its own.
        let now = ISO8601DateFormatter().string(from: Date())
        let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(30))
        func record(_ account: String, _ value: String, expires: Bool = false) -> String {
            let base64 = Data(value.utf8).base64EncodedString()
            return #"{"service":"\#(vault.service)","account":"\#(account)","value":"\#(base64)","#
                + #""created":"\#(now)","updated":"\#(now)""# + (expires ? #","expires":"\#(soon)"}"# : "}")
        }
        let document =
            [
                #"{"vault":1}"#,
                record(".vault-token/deploy", Self.oauthCompanion(listener)),
                record(".vault-token/deploy2", Self.commandCompanion(marker)),
                record("deploy", "planted-deploy", expires: true), record("deploy2", "planted-deploy2", expires: true),
            ].joined(separator: "\n") + "\n"
        let encrypted = try runTool(
            "/usr/bin/age", ["-r", team.recipient.encoded, "-r", attacker.recipient.encoded, "-o", vault.vaultFile],
            input: Array(document.utf8), environment: [:])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")

        // The header changed since the reader wrote the file: checked before any refresh.
        try Self.expectRefused(
            vault, "deploy", listener: listener, marker: marker, plain: "planted-deploy", fragment: "run 'vault trust'")
        // Accepting the recipients does not approve what the file says about refreshes.
        try vault.run(["trust"]).expectSuccess()
        try Self.expectRefused(vault, "deploy", listener: listener, marker: marker, plain: "planted-deploy")
        try Self.expectRefused(vault, "deploy2", listener: listener, marker: marker, plain: "planted-deploy2")
    }

    @Test("token URLs: plain http to another machine and user information are refused at import")
    func importChecks() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let response = Array(#"{"access_token":"a","expires_in":60,"refresh_token":"r"}"#.utf8)
        let http = try vault.run(
            ["oauth", "import", "t", "--token-url", "http://auth.example/oauth/token?k=v", "--client-id", "c"],
            stdin: response)
        http.expectFailure(2, "VAULT_ALLOW_HTTP")
        #expect(!http.stderr.contains("/oauth") && !http.stderr.contains("k=v"))
        let userInfo = try vault.run(
            ["oauth", "import", "t", "--token-url", "https://me:pw@auth.example/token", "--client-id", "c"],
            stdin: response)
        userInfo.expectFailure(2, "not a plain http(s) URL")
        #expect(!userInfo.stderr.contains("pw"))
        try vault.run(
            ["oauth", "import", "t", "--token-url", "http://auth.example/token", "--client-id", "c"], stdin: response,
            env: ["VAULT_ALLOW_HTTP": "1"]
        ).expectSuccess()
        try vault.run(["get", "t"], env: ["VAULT_REFRESH_ORIGINS": "auth.example"]).expectFailure(
            2, "VAULT_REFRESH_ORIGINS")
    }
}
