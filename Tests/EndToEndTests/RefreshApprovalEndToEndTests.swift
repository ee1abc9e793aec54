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
/// that would leave a marker. Then the approved paths: the machine that stored the token, a
/// second machine with `VAULT_REFRESH_ORIGINS`, the command list, `vault trust NAME`.
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
        let listener = try SilentListener()
        let marker = vault.path("command-ran")
        try plant("deploy", Self.oauthCompanion(listener))
        try plant("deploy2", Self.commandCompanion(marker))
        try Self.expectRefused(vault, "deploy", listener: listener, marker: marker, plain: "plain-deploy")
        try Self.expectRefused(vault, "deploy2", listener: listener, marker: marker, plain: "plain-deploy2")
        let shown = try vault.run(["show", "deploy"])
        #expect(shown.stdoutText.contains("trusted: no"), "\(shown.stdoutText)")
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
        let listener = try SilentListener()
        let marker = vault.path("command-ran")
        try plant("deploy", Self.oauthCompanion(listener))
        try plant("deploy2", Self.commandCompanion(marker))
        try Self.expectRefused(vault, "deploy", listener: listener, marker: marker, plain: "plain-deploy")
        try Self.expectRefused(vault, "deploy2", listener: listener, marker: marker, plain: "plain-deploy2")
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

    @Test("approved paths: the machine that stored it, VAULT_REFRESH_ORIGINS, vault trust NAME, the command list")
    func approvedPaths() throws {
        let server = try OAuthServer.shared()
        let oauth = OAuthRefreshTests()
        let first = try VaultRunner.scripted()
        defer { first.cleanUp() }
        // A second machine: the same vault file and key, its own HOME (state and configuration).
        var second = first
        second.environment["HOME"] = first.path("second-home")
        try FileManager.default.createDirectory(atPath: first.path("second-home"), withIntermediateDirectories: true)

        let issued = try oauth.importToken(first, server, name: "gh")
        let refreshes = { try oauth.refreshes(server) }
        var before = try refreshes()
        let refreshed = try first.run(["get", "gh"])
        #expect(refreshed.status == 0 && refreshed.stdoutText != issued, "\(refreshed.stderr)")
        #expect(try refreshes() == before + 1)

        try oauth.waitForExpiry(first, "gh")
        before = try refreshes()
        try second.run(["get", "gh"]).expectFailure(6, "vault trust gh")
        #expect(try second.run(["show", "gh"]).stdoutText.contains("trusted: no"))
        #expect(try refreshes() == before)
        let listed = try second.run(
            ["get", "gh"], env: ["VAULT_REFRESH_ORIGINS": "https://other.example, \(server.base)"])
        #expect(listed.status == 0 && !listed.stdout.isEmpty, "\(listed.stderr)")
        #expect(try refreshes() == before + 1)

        try oauth.waitForExpiry(second, "gh")
        try second.run(["get", "gh"]).expectFailure(6, "VAULT_REFRESH_ORIGINS")
        let trusted = try second.run(["trust", "gh"])
        #expect(trusted.status == 0 && trusted.stderr.contains(server.base), "\(trusted.stderr)")
        #expect(try second.run(["show", "gh"]).stdoutText.contains("trusted: yes"))
        #expect(try second.run(["get", "gh"]).status == 0)
        #expect(try refreshes() == before + 2)

        // The first machine logs in again at another origin (the same server by name): the second
        // machine's approval does not follow.
        let moved = try server.issue(expiresIn: 0)
        try first.run(
            [
                "oauth", "import", "gh", "--token-url", "http://localhost:\(server.port)/token", "--client-id",
                "public-cli",
            ],
            stdin: moved
        ).expectSuccess()
        before = try refreshes()
        try second.run(["get", "gh"]).expectFailure(6, "changed since it was approved")
        #expect(try refreshes() == before)
        #expect(try first.run(["get", "gh"]).status == 0)
        #expect(try refreshes() == before + 1)

        // A refresh command: runs where it was set, elsewhere only from the user's own list.
        let marker = first.path("minted")
        let command = "touch \(marker); echo fresh"
        try first.run(["set", "cmd", "--expires-in", "1h", "--refresh-command", command]).expectSuccess()
        try second.run(["get", "cmd"]).expectFailure(6, "vault trust cmd")
        #expect(!FileManager.default.fileExists(atPath: marker))
        let list = first.path("second-home/.config/vault/refresh-commands")
        try FileManager.default.createDirectory(
            atPath: first.path("second-home/.config/vault"), withIntermediateDirectories: true)
        try "# approved commands\n\(command)\n".write(toFile: list, atomically: false, encoding: .utf8)
        chmod(list, 0o666)
        try second.run(["get", "cmd"]).expectFailure(6, "chmod go-w")
        #expect(!FileManager.default.fileExists(atPath: marker))
        chmod(list, 0o600)
        let minted = try second.run(["get", "cmd"])
        #expect(minted.status == 0 && minted.stdoutText == "fresh", "\(minted.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker))
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
