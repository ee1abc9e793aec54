import Foundation
import Synchronization
import Testing
import VaultAge
import VaultTestSupport

/// `vault otp` end to end: oathtool judges the codes, libfaketime sets the clock for
/// `--min-valid`, and many processes share one HOTP counter.
@Suite("One-time code command")
struct OneTimeCodeCommandTests {
    static let oathtool = "/usr/bin/oathtool"
    static let faketime = "/usr/bin/faketime"

    static func requireTool(_ path: String) throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: path) ? nil : "\(path) is not installed (Debian package)")
    }

    /// A random base32 seed of `bytes` bytes (a multiple of 5, so that no padding is needed), as
    /// an issuer makes one.
    static func randomSecret(bytes: Int = 20) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        return String((0..<(bytes / 5 * 8)).map { _ in alphabet[Int.random(in: 0..<32)] })
    }

    static func oathtool(_ arguments: [String]) throws -> String {
        let result = try runTool(oathtool, arguments)
        #expect(result.status == 0, "oathtool: \(result.stderr)")
        return result.stdoutText
    }

    @Test("otp add reads the URI from standard input only; bad input is exit 2, one line, nothing stored")
    func addAndRefuse() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        let uri = "otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME"
        try runner.run(["otp", "add", "acme", uri], stdin: []).expectFailure(2, "never taken from the command line")
        try runner.run(["otp", uri]).expectFailure(2, "never taken from the command line")
        for bad in [
            "https://example.com", "otpauth://totp/x?secret=JBSWY3DP1",
            "otpauth://totp/x?secret=JBSWY3DP&algorithm=MD5",
            "otpauth://totp/x?secret=JBSWY3DP&digits=9", "otpauth://hotp/x?secret=JBSWY3DP", "",
        ] {
            try runner.run(["otp", "add", "acme"], stdin: Array(bad.utf8)).expectFailure(2)
        }
        try runner.run(["otp", "add"]).expectFailure(2, "usage: vault otp add NAME")
        for help in [["otp", "--help"], ["otp", "add", "--help"], ["help", "otp"]] {
            let text = try runner.run(help)
            text.expectSuccess()
            #expect(text.stdoutText.hasPrefix("usage: vault otp [--min-valid SECONDS] NAME|add NAME\n"))
            #expect(text.stdoutText.contains("'vault otp add NAME' reads an otpauth://totp/"))
            #expect(text.stdoutText.contains("mfa_process = vault otp aws-mfa"))
        }
        #expect(try runner.run(["ls"]).stdout.isEmpty, "nothing was stored")

        try runner.run(["otp", "add", "acme"], stdin: Array((uri + "\n").utf8)).expectSuccess()
        try runner.run(["get", "acme"]).expectFailure(2, "'vault otp acme'")
        let show = try runner.run(["show", "acme"])
        show.expectSuccess()
        #expect(show.stdoutText.contains("kind:    totp, SHA1, 6 digits, a code every 30 s"), "\(show.stdoutText)")
        #expect(show.stdoutText.contains("issuer:  ACME"))
        let json = try runner.run(["ls", "--json"])
        #expect(
            json.stdoutText.contains(
                #","kind":"totp","otp":{"algorithm":"SHA1","digits":6,"period":30,"issuer":"ACME","label":"ACME:alice"}}"#
            ),
            "\(json.stdoutText)")
        let showJSON = try runner.run(["show", "--json", "acme"]).stdoutText
        #expect(
            showJSON.hasSuffix(
                #","kind":"totp","otp":{"algorithm":"SHA1","digits":6,"period":30,"issuer":"ACME","label":"ACME:alice"}}"#
                    + "\n"))
        for output in [show.stdoutText, json.stdoutText, showJSON] {
            #expect(!output.contains("JBSWY3DP"), "the seed is never shown")
        }
        try runner.run(["otp", "acme", "--min-valid", "16"]).expectFailure(2, "0 to 15 seconds")
        try runner.run(["otp", "acme", "--min-valid", "soon"]).expectFailure(2, "--min-valid is 'soon'")
        try runner.run(["otp", "acme", "--min-valid", "-1"]).expectFailure(2)
        try runner.run(["set", "plain"], stdin: Array("x".utf8)).expectSuccess()
        try runner.run(["otp", "plain"]).expectFailure(2, "vault otp add plain")
        try runner.run(["otp", "absent"]).expectFailure(1)
        try runner.run(["export", "--format", "dotenv"]).expectFailure(2, "--format json")
    }

    @Test("codes agree with oathtool at the real time, for SHA-1, SHA-256 and SHA-512, TOTP and HOTP")
    func oathtoolJudges() throws {
        try Self.requireTool(Self.oathtool)
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        for (algorithm, digits, period) in [("SHA1", 6, 30), ("SHA256", 8, 60), ("SHA512", 7, 30)] {
            let secret = Self.randomSecret(bytes: algorithm == "SHA512" ? 65 : 35)
            let name = "totp-\(algorithm)"
            try runner.run(
                ["otp", "add", name],
                stdin: Array(
                    "otpauth://totp/t?secret=\(secret.lowercased())&algorithm=\(algorithm)&digits=\(digits)&period=\(period)"
                        .utf8)
            ).expectSuccess()
            // Judged by the clock, not raced against it: vault printed between `before` and `after`,
            // so its code is oathtool's for one of the periods in between, and only for one that
            // still had --min-valid seconds left at `before` (the current one is out when it had not).
            let half = period / 2
            let before = Int64(Date().timeIntervalSince1970)
            let code = try runner.run(["otp", name, "--min-valid", "\(half)"])
            let after = Int64(Date().timeIntervalSince1970) + 1
            code.expectSuccess()
            var judged: [String] = []
            var start = before / Int64(period) * Int64(period)
            while start <= after {
                if start + Int64(period - half) >= before {
                    judged.append(
                        try Self.oathtool([
                            "--totp=\(algorithm)", "--base32", "--digits=\(digits)", "--time-step-size=\(period)s",
                            "-N", "@\(start)", secret,
                        ]))
                }
                start += Int64(period)
            }
            #expect(judged.contains(code.stdoutText), "\(algorithm): vault \(code.stdoutText), oathtool \(judged)")
        }
        let secret = Self.randomSecret()
        try runner.run(["otp", "add", "hotp"], stdin: Array("otpauth://hotp/h?secret=\(secret)&counter=7".utf8))
            .expectSuccess()
        for counter in 7..<10 {
            let code = try runner.run(["otp", "hotp"])
            code.expectSuccess()
            #expect(code.stdoutText == (try Self.oathtool(["--hotp", "--base32", "-c", "\(counter)", secret])))
        }
        #expect(try runner.run(["show", "hotp"]).stdoutText.contains("next counter 10"))
    }

    @Test("near the end of a period, vault waits and prints the next period's code (faketime)")
    func minimumValidityUnderFaketime() throws {
        try Self.requireTool(Self.oathtool)
        try Self.requireTool(Self.faketime)
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        let secret = Self.randomSecret()
        try runner.run(["otp", "add", "t"], stdin: Array("otpauth://totp/t?secret=\(secret)".utf8)).expectSuccess()
        // 2,000,000,009 is 1 s before a period ends (2,000,000,010 is a multiple of 30).
        let late = "@2000000009"
        let current = try Self.oathtool(["--totp", "--base32", "-N", "@2000000009", secret])
        let next = try Self.oathtool(["--totp", "--base32", "-N", "@2000000010", secret])
        func otp(_ clock: [String], _ extra: [String]) throws -> ToolResult {
            try runTool(
                Self.faketime, clock + [VaultRunner.binary, "otp", "t"] + extra,
                environment: runner.environment.merging(["TZ": "UTC"]) { $1 }, timeout: 60)
        }
        // A clock that runs from 1 s before the end: vault waits for the next period, and a slow
        // start only moves it further into that period.
        let waited = try otp([late], [])
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(waited.stdoutText == next, "default --min-valid 5: the next period's code")
        // A stopped clock (an absolute time without '@'), so that a slow start cannot carry vault
        // past the end of the period.
        let immediate = try otp(["-f", "2033-05-18 03:33:29"], ["--min-valid", "0"])
        #expect(immediate.status == 0, "\(immediate.stderr)")
        #expect(immediate.stdoutText == current, "--min-valid 0: the current code, 1 s before it ends")
    }

    @Test("100 concurrent vault otp on one HOTP secret print the codes of 100 consecutive counters, each once")
    func concurrentCounter() throws {
        try Self.requireTool(Self.oathtool)
        var vault = try IdentityVault()
        defer { vault.cleanUp() }
        // The processes queue on the counter's lock: give the last of them time to get it.
        vault.runner.environment["VAULT_TIMEOUT"] = "300"
        let runner = vault.runner
        let secret = Self.randomSecret()
        try runner.run(["otp", "add", "h"], stdin: Array("otpauth://hotp/h?secret=\(secret)&counter=1000".utf8))
            .expectSuccess()
        let count = 100
        let codes = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        onThreads(count) { _ in
            do {
                let result = try runner.run(["otp", "h"], timeout: 300)
                if result.status == 0 {
                    codes.withLock { $0.append(result.stdoutText) }
                } else {
                    failures.withLock { $0.append("\(result.status): \(result.stderr)") }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        // oathtool's window prints the codes of counters 1000 to 1099, one per line.
        let expected = try Self.oathtool(["--hotp", "--base32", "-c", "1000", "-w", "\(count - 1)", secret])
            .split(separator: "\n").map { String($0) + "\n" }
        #expect(expected.count == count)
        #expect(codes.withLock { $0 }.sorted() == expected.sorted())
        #expect(try runner.run(["show", "h"]).stdoutText.contains("next counter \(1000 + count)"))
    }

    @Test("references: inject and exec --env-file put a code where vault-otp:// stands")
    func references() throws {
        try Self.requireTool(Self.oathtool)
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        let secret = Self.randomSecret()
        try runner.run(
            ["--service", "ci", "otp", "add", "npm"], stdin: Array("otpauth://hotp/n?secret=\(secret)&counter=0".utf8)
        ).expectSuccess()
        let injected = try runner.run(["inject"], stdin: Array("otp={{ vault-otp://ci/npm }}\n".utf8))
        injected.expectSuccess()
        #expect(injected.stdoutText == "otp=" + (try Self.oathtool(["--hotp", "--base32", "-c", "0", secret])))
        let envFile = runner.path("otp.env")
        try Data("NPM_OTP=vault-otp://ci/npm\n".utf8).write(to: URL(fileURLWithPath: envFile))
        let printCode = ["--", "/bin/sh", "-c", "printf '%s\\n' \"$NPM_OTP\""]
        let exec = try runner.run(["exec", "--no-mask", "--env-file", envFile] + printCode)
        exec.expectSuccess()
        #expect(exec.stdoutText == (try Self.oathtool(["--hotp", "--base32", "-c", "1", secret])))
        // exec's masking covers a code as it covers every value it injects.
        let masked = try runner.run(["exec", "--env-file", envFile] + printCode)
        masked.expectSuccess()
        #expect(masked.stdoutText == "***\n", "\(masked.stdoutText)")
        try runner.run(["inject"], stdin: Array("{{ vault://ci/npm }}".utf8)).expectFailure(2, "vault otp npm")
        // --all binds the plain secrets and leaves the seed out; naming it is refused.
        try runner.run(["--service", "ci", "set", "token"], stdin: Array("t0k".utf8)).expectSuccess()
        let all = try runner.run(["--service", "ci", "exec", "--all", "--", "/usr/bin/env"])
        all.expectSuccess()
        #expect(all.stdoutText.contains("TOKEN=t0k\n"))
        #expect(!all.stdoutText.contains("NPM="))
        try runner.run(["--service", "ci", "exec", "--env", "X=npm", "--", "/bin/true"]).expectFailure(
            2, "vault otp npm")
    }

    @Test("export --format json keeps the URI and its kind; import restores both")
    func exportImport() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["otp", "add", "aws-mfa"], stdin: Array("otpauth://totp/AWS?secret=GEZDGNBV".utf8))
            .expectSuccess()
        let exported = try vault.runner.run(["export", "--format", "json"])
        exported.expectSuccess()
        #expect(exported.stdoutText.contains(#""kind":"totp"}"#))
        let other = try IdentityVault()
        defer { other.cleanUp() }
        try other.runner.run(["import", "--format", "json"], stdin: exported.stdout).expectSuccess()
        try other.runner.run(["get", "aws-mfa"]).expectFailure(2, "vault otp aws-mfa")
        let a = try vault.runner.run(["otp", "aws-mfa", "--min-valid", "15"])
        let b = try other.runner.run(["otp", "aws-mfa", "--min-valid", "15"])
        #expect(a.status == 0 && b.status == 0)
        // Both printed with 15 s left at least: the same period unless 15 s passed in between.
        #expect(a.stdoutText == b.stdoutText)
    }

    /// The same HOTP run on a backend: counters advance, get refuses the seed, show names the kind,
    /// and migrating the secret to the vault file keeps it a hotp secret with its counter.
    static func hotpRoundTrip(_ runner: VaultRunner, backend: String, beforeMigration: () throws -> Void = {}) throws {
        try requireTool(oathtool)
        let secret = randomSecret()
        let on = ["--backend", backend]
        try runner.run(on + ["otp", "add", "h"], stdin: Array("otpauth://hotp/h?secret=\(secret)&counter=5".utf8))
            .expectSuccess()
        for counter in 5..<7 {
            let code = try runner.run(on + ["otp", "h"])
            code.expectSuccess()
            #expect(
                code.stdoutText == (try oathtool(["--hotp", "--base32", "-c", "\(counter)", secret])), "\(backend)")
        }
        try runner.run(on + ["get", "h"]).expectFailure(2, "vault otp h")
        #expect(try runner.run(on + ["show", "--json", "h"]).stdoutText.contains(#""kind":"hotp","otp":{"#))
        #expect(try runner.run(on + ["ls", "--json"]).stdoutText.contains(#""counter":7"#))
        try beforeMigration()
        try runner.run(["migrate", "--from", backend, "--to", "file"]).expectSuccess()
        try runner.run(["--backend", "file", "get", "h"]).expectFailure(2, "vault otp h")
        let code = try runner.run(["--backend", "file", "otp", "h"])
        #expect(
            code.stdoutText == (try oathtool(["--hotp", "--base32", "-c", "7", secret])), "migrated from \(backend)")
    }

    @Test("on the Secret Service, the kind and the counter survive, and a migration to the file keeps them")
    func secretService() throws {
        let keyring = try MigrateSecretServiceTests.Keyring()
        defer { keyring.cleanUp() }
        try Self.hotpRoundTrip(keyring.vault, backend: "secret-service")
    }

    @Test("on OpenBao, the kind and the counter survive, and a migration to the file keeps them")
    func openBao() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        var runner = try OpenBaoCommandTests().runner(server, mount: mount)
        defer { runner.cleanUp() }
        runner.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try Self.hotpRoundTrip(runner, backend: "openbao") {
            let kind = try server.bao(["kv", "get", "-mount=\(mount)", "-field=vault_kind", "vault/vault/h"])
            #expect(kind.stdoutText == "hotp", "\(kind.stderr)")
        }
    }
}
