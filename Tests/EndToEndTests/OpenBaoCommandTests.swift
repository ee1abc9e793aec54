import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault --backend openbao` through the built binary, against a real OpenBao dev server.
@Suite("OpenBao commands")
struct OpenBaoCommandTests {
    /// A runner whose environment points at a fresh KV v2 mount of the shared dev server.
    func runner(_ server: OpenBaoDevServer, mount: String) throws -> VaultRunner {
        var runner = try VaultRunner()
        runner.environment["BAO_ADDR"] = server.address
        runner.environment["BAO_TOKEN"] = server.token
        runner.environment["BAO_KV_MOUNT"] = mount
        runner.environment["VAULT_TIMEOUT"] = "10"
        return runner
    }

    @Test("get, set, ls and rm through the CLI interoperate with bao kv")
    func interop() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let runner = try runner(server, mount: mount)
        defer { runner.cleanUp() }

        let put = try server.bao(["kv", "put", "-mount=\(mount)", "vault/github/ci/token", "value=ghp_bao"])
        try #require(put.status == 0, "\(put.stderr)")
        let get = try runner.run(["--backend", "openbao", "--service", "github", "get", "ci/token"])
        get.expectSuccess()
        #expect(get.stdoutText.hasPrefix("ghp_bao"))

        try runner.run(["--backend", "openbao", "set", "deploy/key"], stdin: Array("from vault".utf8)).expectSuccess()
        let read = try server.bao(["kv", "get", "-mount=\(mount)", "-field=value", "vault/vault/deploy/key"])
        #expect(read.stdoutText == "from vault", "\(read.stderr)")

        let env = ["VAULT_BACKEND": "openbao"]
        try runner.run(["set", "a/b/c"], stdin: [1, 2], env: env).expectSuccess()
        let listed = try runner.run(["ls"], env: env)
        listed.expectSuccess()
        #expect(listed.stdoutText.contains("a/b/c") && listed.stdoutText.contains("deploy/key"), "\(listed.stdoutText)")
        try runner.run(["rm", "a/b/c"], env: env).expectSuccess()
        try runner.run(["get", "a/b/c"], env: env).expectFailure(1)
        #expect(!(try runner.run(["ls"], env: env).stdoutText.contains("a/b/c")))
    }

    @Test("migrate file → openbao → file keeps binary values byte for byte")
    func migrateRoundTrip() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        var runner = try runner(server, mount: mount)
        defer { runner.cleanUp() }
        runner.environment["VAULT_PASSPHRASE"] = "migrate-test"
        let values: [String: [UInt8]] = [
            "text": Array("plain ✓".utf8), "binary": [0, 0xFF, 0x80, 0x0A, 0x00], "empty": [],
            "big": patternBytes(count: 200_000), "nested/name": Array("n".utf8),
        ]
        for (name, value) in values {
            try runner.run(["--backend", "file", "set", name] + (value.isEmpty ? ["--allow-empty"] : []), stdin: value)
                .expectSuccess()
        }
        try runner.run(["migrate", "--from", "file", "--to", "openbao"]).expectSuccess()
        for (name, value) in values {
            #expect(try runner.run(["--backend", "openbao", "get", name]).stdout == value, "\(name) in OpenBao")
        }
        let second = runner.path("second.age")
        try runner.run(["migrate", "--from", "openbao", "--to", "file:\(second)"]).expectSuccess()
        for (name, value) in values {
            #expect(try runner.run(["--file", second, "get", name]).stdout == value, "\(name) back in a file")
        }
        #expect(try runner.run(["--backend", "openbao", "ls"]).stdoutText.isEmpty)
    }

    @Test("8 writers × 25 concurrent sets: every write arrives")
    func concurrentSets() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let runner = try runner(server, mount: mount)
        defer { runner.cleanUp() }
        var environment = runner.environment
        environment["VAULT_BACKEND"] = "openbao"
        environment["VAULT"] = VaultRunner.binary
        let script =
            #"for i in $(seq 1 25); do printf 'value-%s-%s' "$1" "$i" | "$VAULT" set "w$1/n$i" || exit 1; done"#
        let pids = try (1...8).map { writer in
            try spawnChild("/bin/sh", ["-c", script, "sh", String(writer)], environment: environment, input: .null)
        }
        let statuses = pids.map { waitChild($0, timeout: 300) }
        #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)")
        let listed = try runner.run(["--backend", "openbao", "ls"])
        #expect(listed.stdoutText.split(separator: "\n").count == 200, "\(listed.stdoutText)")
        for writer in [1, 8] {
            for i in [1, 25] {
                let value = try runner.run(["--backend", "openbao", "get", "w\(writer)/n\(i)"]).stdoutText
                #expect(value == "value-\(writer)-\(i)")
            }
        }
    }

    @Test("unreachable and hanging servers exit 5 within VAULT_TIMEOUT, a bad token exits 4, never naming it")
    func exitCodes() throws {
        let server = try OpenBaoDevServer.shared()
        let runner = try runner(server, mount: "secret")
        defer { runner.cleanUp() }
        let closed = try freeLoopbackPort()
        let unreachable = try runner.run(
            ["--backend", "openbao", "get", "x"], env: ["BAO_ADDR": "http://127.0.0.1:\(closed)", "VAULT_TIMEOUT": "1"])
        unreachable.expectFailure(5, "127.0.0.1:\(closed)")
        #expect(!unreachable.stderr.contains(server.token))

        // A listener that accepts connections (the kernel's backlog) and never answers.
        let silent = try SilentListener()
        let started = Date()
        let hanging = try runner.run(
            ["--backend", "openbao", "set", "x"], stdin: [1],
            env: ["BAO_ADDR": "http://127.0.0.1:\(silent.port)", "VAULT_TIMEOUT": "1.5"])
        let elapsed = Date().timeIntervalSince(started)
        hanging.expectFailure(5, "did not answer in time")
        // At least VAULT_TIMEOUT (what vault controls); the upper bound only catches a wait
        // without a deadline, with room for a loaded machine's slow start of a debug binary.
        #expect(elapsed >= 1.5 && elapsed < 40, "took \(elapsed) s")

        let denied = try runner.run(["--backend", "openbao", "get", "x"], env: ["BAO_TOKEN": "s.bad-token-value"])
        denied.expectFailure(4, server.address)
        #expect(!denied.stderr.contains("bad-token-value"))

        let noAddress = try runner.run(["--backend", "openbao", "get", "x"], unset: ["BAO_ADDR"])
        noAddress.expectFailure(2, "BAO_ADDR")
        try runner.run(["migrate", "--from", "openbao", "--to", "openbao"]).expectFailure(2, "the same store")
    }

    @Test("AppRole: many gets log in once, the login token is cached 0600 under XDG_RUNTIME_DIR")
    func appRole() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let auth = "approle-" + mount
        let policy =
            "path \"\(mount)/*\" { capabilities = [\"create\", \"read\", \"update\", \"patch\", \"delete\", \"list\"] }"
        let setup: [[String]] = [
            ["auth", "enable", "-path=\(auth)", "approle"],
            ["policy", "write", "policy-\(mount)", "-"],
            ["write", "auth/\(auth)/role/ci", "token_policies=policy-\(mount)", "token_ttl=1h"],
        ]
        for arguments in setup {
            let input = arguments[0] == "policy" ? Array(policy.utf8) : []
            let result = try runTool(server.bao, arguments, input: input, environment: server.environment)
            try #require(result.status == 0, "bao \(arguments): \(result.stderr)")
        }
        let roleID = try server.bao(["read", "-field=role_id", "auth/\(auth)/role/ci/role-id"]).stdoutText
        let secretID = try server.bao(["write", "-f", "-field=secret_id", "auth/\(auth)/role/ci/secret-id"]).stdoutText
        try #require(!roleID.isEmpty && !secretID.isEmpty)

        var runner = try runner(server, mount: mount)
        defer { runner.cleanUp() }
        runner.environment.removeValue(forKey: "BAO_TOKEN")
        let runtime = runner.path("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        runner.environment.merge(
            [
                "BAO_ROLE_ID": roleID, "BAO_SECRET_ID": secretID, "BAO_APPROLE_MOUNT": auth, "XDG_RUNTIME_DIR": runtime,
                "VAULT_BACKEND": "openbao",
            ]) { $1 }

        let before = try loginCount(server, auth: auth)
        try runner.run(["set", "ci-token"], stdin: Array("v".utf8)).expectSuccess()
        for _ in 0..<10 {
            #expect(try runner.run(["get", "ci-token"]).stdoutText == "v")
        }
        #expect(try loginCount(server, auth: auth) - before == 1, "11 commands, one login")
        let cached = try FileManager.default.contentsOfDirectory(atPath: runtime + "/vault")
        try #require(cached.count == 1, "\(cached)")
        var st = stat()
        #expect(stat(runtime + "/vault/" + cached[0], &st) == 0 && st.st_mode & 0o777 == 0o600)

        // A revoked cached token: the next command logs in again instead of failing.
        let revoke = try server.bao(["token", "revoke", "-mode=path", "auth/\(auth)"])
        try #require(revoke.status == 0, "\(revoke.stderr)")
        #expect(try loginCount(server, auth: auth) == before, "the login token is revoked")
        #expect(try runner.run(["get", "ci-token"]).stdoutText == "v")
        #expect(try loginCount(server, auth: auth) - before == 1, "a new login replaced it")

        let wrong = try runner.run(["get", "ci-token"], env: ["BAO_SECRET_ID": "wrong", "XDG_RUNTIME_DIR": ""])
        wrong.expectFailure(4, "AppRole")
        #expect(!wrong.stderr.contains(secretID))
        // The cache is keyed by the secret ID too: a job with another (wrong, revoked) secret ID
        // never reads through the token a job with the right one cached.
        let other = try runner.run(["get", "ci-token"], env: ["BAO_SECRET_ID": "not-the-secret-id"])
        other.expectFailure(4, "AppRole")
        #expect(!other.stderr.contains(secretID))
        #expect(try runner.run(["get", "ci-token"]).stdoutText == "v")
    }

    /// Tokens the AppRole mount has issued so far: the accessors of tokens with its path.
    func loginCount(_ server: OpenBaoDevServer, auth: String) throws -> Int {
        let accessors = try server.bao(["list", "-format=json", "auth/token/accessors"])
        try #require(accessors.status == 0, "\(accessors.stderr)")
        var count = 0
        for accessor in try JSONSerialization.jsonObject(with: Data(accessors.stdout)) as? [String] ?? [] {
            let lookup = try server.bao(["token", "lookup", "-format=json", "-accessor", accessor])
            let json = try JSONSerialization.jsonObject(with: Data(lookup.stdout)) as? [String: Any]
            let data = json?["data"] as? [String: Any]
            if (data?["path"] as? String)?.hasPrefix("auth/\(auth)/login") == true { count += 1 }
        }
        return count
    }

    @Test("doctor shows the server, reachable, sealed or not, the token's TTL and the mount's version")
    func doctor() throws {
        let server = try OpenBaoDevServer.shared()
        let runner = try runner(server, mount: "secret")
        defer { runner.cleanUp() }
        let report = try runner.run(["--backend", "openbao", "doctor"])
        report.expectSuccess()
        let line = report.stdoutText.split(separator: "\n").first { $0.hasPrefix("openbao") }.map(String.init) ?? ""
        for fragment in [server.address, "reachable", "unsealed", "token does not expire", "KV version 2", "usable"] {
            #expect(line.contains(fragment), "\(report.stdoutText)")
        }
        #expect(report.stdoutText.contains("chosen: openbao"))
        let skip = try runner.run(["--backend", "openbao", "get", "absent"], env: ["BAO_SKIP_VERIFY": "1"])
        #expect(skip.stderr.contains("BAO_SKIP_VERIFY"), "\(skip.stderr)")
    }
}
