import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// JWT login (`BAO_JWT`, `BAO_JWT_FILE`, the Actions id token) through the built binary, against
/// OpenBao's real `jwt` auth method, with JWTs signed by a key the suite makes
/// (Tests/jwt-issuer.py, python3-cryptography).
@Suite("OpenBao JWT login")
struct OpenBaoJWTTests {
    /// One jwt auth mount, KV mount, policy and roles for the whole suite.
    struct Fixture: Sendable {
        let server: OpenBaoDevServer
        /// The KV v2 mount the role's policy opens.
        let mount: String
        /// Where the jwt auth method is mounted (`jwt-...`).
        let auth: String
        /// The issuer's key pair and the Actions stand-in's request log.
        let folder: String
        static let issuer = "https://issuer.vault.test"
        /// Claims the `ci` role accepts, less `aud` (`vault-ci`) and the expiry.
        static let claims = #""sub":"repo:vault/ci","iss":"https://issuer.vault.test","project":"vault""#

        private static let made = Result { () throws -> Fixture in try make() }

        static func shared() throws -> Fixture {
            _ = try OpenBaoDevServer.shared()
            let hasCryptography =
                FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                && (try? runTool("/usr/bin/python3", ["-c", "import cryptography"], timeout: 30).status) == 0
            try requireComponent(hasCryptography ? nil : "python3-cryptography (Debian's /usr/bin/python3) is missing")
            return try made.get()
        }

        private static func make() throws -> Fixture {
            let server = try OpenBaoDevServer.shared()
            let folder = try makeTemporaryDirectory(prefix: "vault-jwt").path
            try issuerTool(["keygen", folder])
            let mount = try server.freshMount()
            let auth = "jwt-" + mount.dropFirst("vault-test-".count)
            let policy =
                "path \"\(mount)/*\" { capabilities = [\"create\", \"read\", \"update\", \"patch\", \"delete\", \"list\"] }"
            func role(_ project: String) -> String {
                #"{"role_type":"jwt","bound_audiences":["vault-ci"],"user_claim":"sub","#
                    + #""bound_claims":{"project":"\#(project)"},"token_policies":["policy-\#(mount)"],"token_ttl":"1h"}"#
            }
            var setup: [([String], String)] = [
                (["auth", "enable", "-path=\(auth)", "jwt"], ""),
                (
                    [
                        "write", "auth/\(auth)/config", "jwt_validation_pubkeys=@\(folder)/issuer.pub",
                        "bound_issuer=\(issuer)",
                    ], ""
                ),
                (["policy", "write", "policy-\(mount)", "-"], policy),
                (["write", "auth/\(auth)/role/elsewhere", "-"], role("elsewhere")),
            ]
            // A role per test that counts its logins: the tests run in parallel.
            for name in ["ci", "ci-file", "ci-actions", "ci-exec"] {
                setup.append((["write", "auth/\(auth)/role/\(name)", "-"], role("vault")))
            }
            for (arguments, input) in setup {
                let result = try runTool(
                    server.bao, arguments, input: Array(input.utf8), environment: server.environment)
                guard result.status == 0 else {
                    throw OpenBaoTestError(description: "bao \(arguments.prefix(3)): \(result.stderr)")
                }
            }
            return Fixture(server: server, mount: mount, auth: auth, folder: folder)
        }

        /// A JWT for the `ci` role, or with `claims` (JSON members) in place of the usual ones.
        func jwt(_ claims: String = Fixture.claims + #","aud":"vault-ci","exp_in":600"#) throws -> String {
            try Self.issuerTool(["sign", folder, "{\(claims)}"])
        }

        @discardableResult
        static func issuerTool(_ arguments: [String]) throws -> String {
            let script = packageRoot()!.appendingPathComponent("Tests/jwt-issuer.py").path
            let result = try runTool("/usr/bin/python3", [script] + arguments, timeout: 60)
            guard result.status == 0 else { throw OpenBaoTestError(description: "jwt-issuer.py: \(result.stderr)") }
            return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A runner that logs in with JWTs at this mount as `role` (no BAO_TOKEN), with its own
        /// runtime folder.
        func runner(role: String) throws -> VaultRunner {
            var runner = try VaultRunner()
            let runtime = runner.path("run")
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            runner.environment.merge(
                [
                    "BAO_ADDR": server.address, "BAO_KV_MOUNT": mount, "BAO_JWT_MOUNT": auth, "BAO_JWT_ROLE": role,
                    "VAULT_TIMEOUT": "10", "VAULT_BACKEND": "openbao", "XDG_RUNTIME_DIR": runtime,
                ]) { $1 }
            return runner
        }

        /// The accessors of the tokens that logins at this jwt mount as `role` made and that are
        /// still valid, as the server lists them.
        func logins(role: String) throws -> [String] {
            let accessors = try server.bao(["list", "-format=json", "auth/token/accessors"])
            guard accessors.status == 0 else { throw OpenBaoTestError(description: accessors.stderr) }
            var found: [String] = []
            for accessor in try JSONSerialization.jsonObject(with: Data(accessors.stdout)) as? [String] ?? [] {
                let lookup = try server.bao(["token", "lookup", "-format=json", "-accessor", accessor])
                let json = try? JSONSerialization.jsonObject(with: Data(lookup.stdout)) as? [String: Any]
                let data = json?["data"] as? [String: Any]
                let meta = data?["meta"] as? [String: Any]
                if (data?["path"] as? String) == "auth/\(auth)/login", (meta?["role"] as? String) == role {
                    found.append(accessor)
                }
            }
            return found
        }
    }

    /// Checks that no output quotes a secret, nor any part of a JWT.
    func expectNothingQuoted(
        _ result: ToolResult, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let output = result.stdoutText + result.stderr
        for secret in secrets {
            for part in [secret] + secret.split(separator: ".").map(String.init) where part.count >= 8 {
                #expect(
                    !output.contains(part), "output quotes a secret: \(result.stderr)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("BAO_JWT: set and get work, many commands log in once, a revoked cached token logs in again")
    func loginWithJWT() throws {
        let fixture = try Fixture.shared()
        var runner = try fixture.runner(role: "ci")
        defer { runner.cleanUp() }
        let jwt = try fixture.jwt()
        runner.environment["BAO_JWT"] = jwt

        let set = try runner.run(["set", "deploy-token"], stdin: Array("from a jwt login".utf8))
        set.expectSuccess()
        expectNothingQuoted(set, [jwt])
        for _ in 0..<5 {
            let get = try runner.run(["get", "deploy-token"])
            #expect(get.stdoutText == "from a jwt login", "\(get.stderr)")
            expectNothingQuoted(get, [jwt])
        }
        let logins = try fixture.logins(role: "ci")
        #expect(logins.count == 1, "6 commands, one login")
        let read = try fixture.server.bao([
            "kv", "get", "-mount=\(fixture.mount)", "-field=value", "vault/vault/deploy-token",
        ])
        #expect(read.stdoutText == "from a jwt login")
        let cached = try FileManager.default.contentsOfDirectory(atPath: runner.path("run") + "/vault")
        try #require(cached.count == 1 && cached[0].hasPrefix("openbao-jwt-"), "\(cached)")
        var st = stat()
        #expect(stat(runner.path("run") + "/vault/" + cached[0], &st) == 0 && st.st_mode & 0o777 == 0o600)

        let doctor = try runner.run(["doctor"])
        doctor.expectSuccess()
        #expect(
            doctor.stdoutText.contains(
                "login: JWT login at auth/\(fixture.auth) as role ci with BAO_JWT (token from the login cache)"),
            "\(doctor.stdoutText)")
        expectNothingQuoted(doctor, [jwt])

        // A revoked cached token: the next command logs in once more instead of failing.
        for accessor in logins {
            let revoke = try fixture.server.bao(["token", "revoke", "-accessor", accessor])
            try #require(revoke.status == 0, "\(revoke.stderr)")
        }
        #expect(try fixture.logins(role: "ci").isEmpty)
        #expect(try runner.run(["get", "deploy-token"]).stdoutText == "from a jwt login")
        #expect(try fixture.logins(role: "ci").count == 1, "a new login replaced the revoked token")

        // Another JWT logs in with its own cache file; an expired file of the same server and
        // role goes, the first JWT's (still valid) stays.
        let folder = runner.path("run") + "/vault/"
        let prefix = String(cached[0][..<cached[0].lastIndex(of: "-")!])
        let expired = folder + prefix + "-0000000000000000000000000000dead"
        #expect(
            FileManager.default.createFile(
                atPath: expired, contents: Data("1000\nold-token\n".utf8), attributes: [.posixPermissions: 0o600]))
        let second = try fixture.jwt(Fixture.claims + #","aud":"vault-ci","exp_in":900"#)
        #expect(try runner.run(["get", "deploy-token"], env: ["BAO_JWT": second]).stdoutText == "from a jwt login")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(
            files.count == 2 && files.contains(cached[0])
                && !files.contains(prefix + "-0000000000000000000000000000dead"), "\(files)")
        #expect(try fixture.logins(role: "ci").count == 2)

        // BAO_TOKEN wins over the JWT (a garbage one, never read).
        let precedence = try runner.run(
            ["doctor"], env: ["BAO_TOKEN": fixture.server.token, "BAO_JWT": "not-a-jwt"])
        #expect(precedence.stdoutText.contains("login: token from BAO_TOKEN"), "\(precedence.stdoutText)")
    }

    @Test("BAO_JWT_FILE: a 0644 token file as Kubernetes mounts it; a file that is not a JWT or is missing exits 4")
    func loginWithJWTFile() throws {
        let fixture = try Fixture.shared()
        var runner = try fixture.runner(role: "ci-file")
        defer { runner.cleanUp() }
        runner.environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        let jwt = try fixture.jwt()
        let file = runner.path("token")
        try Data((jwt + "\n").utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        runner.environment["BAO_JWT_FILE"] = file

        try runner.run(["set", "file-login"], stdin: Array("v".utf8)).expectSuccess()
        let get = try runner.run(["get", "file-login"])
        #expect(get.stdoutText == "v", "\(get.stderr)")
        expectNothingQuoted(get, [jwt])
        #expect(try fixture.logins(role: "ci-file").count == 2, "without XDG_RUNTIME_DIR each command logs in")

        let notJWT = "secret-looking-content-that-is-no-jwt"
        try Data(notJWT.utf8).write(to: URL(fileURLWithPath: file))
        let bad = try runner.run(["get", "file-login"])
        bad.expectFailure(4, "does not hold a JWT")
        #expect(!bad.stderr.contains(notJWT))
        try runner.run(["get", "file-login"], env: ["BAO_JWT_FILE": runner.path("absent")]).expectFailure(
            4, "does not exist")
    }

    @Test("refusals exit 4 with one line naming the cause: expired, audience, claims, unknown role, no mount")
    func refusals() throws {
        let fixture = try Fixture.shared()
        var runner = try fixture.runner(role: "ci-exec")
        defer { runner.cleanUp() }
        runner.environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        let now = Int(Date().timeIntervalSince1970)
        let cases: [(claims: String, env: [String: String], fragment: String)] = [
            (
                Fixture.claims + #","aud":"vault-ci","exp":\#(now - 600),"iat":\#(now - 900),"nbf":\#(now - 900)"#, [:],
                "expired"
            ),
            (Fixture.claims + #","aud":"somebody-else","exp_in":600"#, [:], "audience"),
            (Fixture.claims + #","aud":"vault-ci","exp_in":600"#, ["BAO_JWT_ROLE": "elsewhere"], "claims"),
            (Fixture.claims + #","aud":"vault-ci","exp_in":600"#, ["BAO_JWT_ROLE": "no-such-role"], "no such role"),
            (Fixture.claims + #","aud":"vault-ci","exp_in":600"#, ["BAO_JWT_MOUNT": "not-mounted"], "auth/not-mounted"),
        ]
        for (claims, env, fragment) in cases {
            let jwt = try fixture.jwt(claims)
            let refused = try runner.run(["get", "anything"], env: env.merging(["BAO_JWT": jwt]) { $1 })
            refused.expectFailure(4, fragment)
            #expect(refused.stderr.contains("refused the JWT login"), "\(refused.stderr)")
            expectNothingQuoted(refused, [jwt])
        }
        let noJWT = try runner.run(["get", "anything"])
        noJWT.expectFailure(4, "BAO_JWT_ROLE is set without a JWT")
    }

    /// The Actions id-token endpoint stand-in, started for one test and stopped by its PID.
    struct ActionsEndpoint {
        let pid: Int32
        let url: String
        let log: String
        static let requestToken = "actions-request-token-" + UUID().uuidString

        init(_ fixture: Fixture) throws {
            let port = try freeLoopbackPort()
            let folder = try makeTemporaryDirectory(prefix: "vault-actions").path
            try FileManager.default.copyItem(atPath: fixture.folder + "/issuer.key", toPath: folder + "/issuer.key")
            let script = packageRoot()!.appendingPathComponent("Tests/jwt-issuer.py").path
            pid = try spawnChild(
                "/usr/bin/python3",
                [
                    script, "actions", folder, String(port), Self.requestToken,
                    "{" + Fixture.claims + #","exp_in":600}"#, "https://github.com/vault-test",
                ], environment: nil, input: .null)
            BackgroundProcesses.register(pid)
            url = "http://127.0.0.1:\(port)/token?api-version=2.0"
            log = folder + "/requests.log"
            guard waitForLoopbackPort(port, timeout: 30) else {
                throw OpenBaoTestError(description: "the Actions stand-in did not listen on 127.0.0.1:\(port)")
            }
        }

        /// The requests answered so far, one line each ("ok AUDIENCE", "refused").
        var requests: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func stop() { BackgroundProcesses.stop(pid) }
    }

    @Test(
        "Actions: the id token is asked for BAO_JWT_AUDIENCE once per job; a refused request token exits 4, a dead endpoint 5"
    )
    func actions() throws {
        let fixture = try Fixture.shared()
        let endpoint = try ActionsEndpoint(fixture)
        defer { endpoint.stop() }
        var runner = try fixture.runner(role: "ci-actions")
        defer { runner.cleanUp() }
        runner.environment.merge(
            [
                "ACTIONS_ID_TOKEN_REQUEST_URL": endpoint.url,
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN": ActionsEndpoint.requestToken,
                "BAO_JWT_AUDIENCE": "vault-ci",
            ]) { $1 }
        let secrets = [ActionsEndpoint.requestToken, "api-version"]

        let set = try runner.run(["set", "actions-secret"], stdin: Array("from actions".utf8))
        set.expectSuccess()
        expectNothingQuoted(set, secrets)
        for _ in 0..<3 {
            #expect(try runner.run(["get", "actions-secret"]).stdoutText == "from actions")
        }
        #expect(endpoint.requests == ["ok vault-ci"], "one id token for four commands")
        #expect(try fixture.logins(role: "ci-actions").count == 1)
        let doctor = try runner.run(["doctor"])
        #expect(doctor.stdoutText.contains("with the Actions id token from http://127.0.0.1:"), "\(doctor.stdoutText)")
        expectNothingQuoted(doctor, secrets)

        // Without BAO_JWT_AUDIENCE the provider's default audience is asked for (GitHub: the
        // owner's URL), which this role does not accept.
        let unbound = try runner.run(
            ["get", "actions-secret"], env: ["XDG_RUNTIME_DIR": ""], unset: ["BAO_JWT_AUDIENCE"])
        unbound.expectFailure(4, "BAO_JWT_AUDIENCE")
        #expect(endpoint.requests.last == "ok https://github.com/vault-test")

        let refused = try runner.run(
            ["get", "actions-secret"],
            env: ["XDG_RUNTIME_DIR": "", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "wrong-request-token"])
        refused.expectFailure(4, "id-token: write")
        #expect(refused.stderr.contains(HTTPOrigin.of(endpoint.url)), "\(refused.stderr)")
        expectNothingQuoted(refused, secrets + ["wrong-request-token"])
        #expect(endpoint.requests.last == "refused")

        let closed = try freeLoopbackPort()
        let down = try runner.run(
            ["get", "actions-secret"],
            env: [
                "XDG_RUNTIME_DIR": "",
                "ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:\(closed)/token?api-version=2.0",
            ])
        down.expectFailure(5, "cannot get an id token from the Actions id-token endpoint http://127.0.0.1:\(closed) ")
        expectNothingQuoted(down, secrets)
    }

    @Test("vault exec: the child gets neither the JWT nor the Actions request token, URL or JWT file")
    func execWithholdsJWT() throws {
        let fixture = try Fixture.shared()
        var runner = try fixture.runner(role: "ci-exec")
        defer { runner.cleanUp() }
        let jwt = try fixture.jwt()
        runner.environment["BAO_JWT"] = jwt
        try runner.run(["set", "exec-secret"], stdin: Array("given".utf8)).expectSuccess()
        let withheld = [
            "BAO_JWT", "BAO_JWT_FILE", "VAULT_JWT", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
        ]
        let env = [
            "BAO_JWT_FILE": "/nonexistent/token", "VAULT_JWT": "x.y.z", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request",
            "ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:9/token?api-version=2.0",
        ]
        let child = try runner.run(["exec", "--no-mask", "--env", "GIVEN=exec-secret", "--", "/usr/bin/env"], env: env)
        child.expectSuccess()
        let names = Set(child.stdoutText.split(separator: "\n").map { String($0.split(separator: "=")[0]) })
        #expect(names.contains("GIVEN") && names.contains("BAO_JWT_ROLE"), "\(names.sorted())")
        for name in withheld {
            #expect(!names.contains(name), "\(name) reached the child")
        }
        #expect(!child.stdoutText.contains(jwt))
    }
}

/// `scheme://host:port` of a URL, for the messages' expected origin.
enum HTTPOrigin {
    static func of(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return url }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
