import Foundation
import Testing
import VaultTestSupport

/// Secret references `vault://SERVICE/NAME`: `vault inject` and `vault exec --env-file`, through
/// the binary, including the failures that must leave nothing behind.
@Suite("references, end to end")
struct ReferenceTests {
    static let binary: [UInt8] = Array("line one\nline \"two\" $HOME {{ }}".utf8) + [0xFF, 0x00, 0x0A]

    /// A vault with `token` in its own service, `ci/deploy` in the service `team/ops` (a service
    /// with a '/'), and `old`, expired.
    func populated() throws -> VaultRunner {
        let vault = try VaultRunner.scripted()
        try vault.set("token", Self.binary)
        try vault.run(["--service", "team/ops", "set", "ci/deploy"], stdin: Array("d3ploy".utf8)).expectSuccess()
        try vault.set("old", "stale", ["--expires-at", "2020-01-01T00:00:00Z"])
        return vault
    }

    /// The files in the runner's folder whose names start with `prefix` (leftover temporary files).
    func files(in vault: VaultRunner, prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vault.directory.path).filter { $0.hasPrefix(prefix) }
    }

    @Test("inject replaces every placeholder, byte for byte, into a new 0600 file")
    func injectToFile() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let template =
            "a: {{ vault://\(vault.service)/token }}\nb: {{vault://team%2Fops/ci/deploy}}\n"
            + "c: {{ .Values.kept }} {{ vault://\(vault.service)/token}}\n"
        try Data(template.utf8).write(to: URL(fileURLWithPath: vault.path("t.tmpl")))
        let result = try vault.run(["inject", "-i", vault.path("t.tmpl"), "-o", vault.path("out.yaml")])
        result.expectSuccess()
        #expect(result.stdout.isEmpty)
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: vault.path("out.yaml"))))
        let expected =
            Array("a: ".utf8) + Self.binary + Array("\nb: d3ploy\nc: {{ .Values.kept }} ".utf8) + Self.binary
            + [0x0A]
        #expect(written == expected)
        let mode = try FileManager.default.attributesOfItem(atPath: vault.path("out.yaml"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Standard input to standard output, with the long option names.
        let piped = try vault.run(
            ["inject", "--in", "/dev/stdin"], stdin: Array("x={{ vault://team%2Fops/ci/deploy }}".utf8))
        #expect(piped.stdoutText == "x=d3ploy")
        let stdin = try vault.run(["inject"], stdin: Array("{{vault://team%2Fops/ci/deploy}}".utf8))
        #expect(stdin.stdoutText == "d3ploy")
    }

    @Test("inject is all or nothing: a missing or expired secret writes no file and keeps an old one")
    func injectFailures() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let out = vault.path("out.env")
        let missing = "A={{ vault://\(vault.service)/token }}\nB={{ vault://\(vault.service)/nope }}\n"
        try Data(missing.utf8).write(to: URL(fileURLWithPath: vault.path("missing.tmpl")))
        let result = try vault.run(["inject", "-i", vault.path("missing.tmpl"), "-o", out])
        result.expectFailure(1, "template line 2: vault://\(vault.service)/nope")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(!result.stderr.contains("line one"))
        // To standard output, nothing is written either.
        let toStdout = try vault.run(["inject", "-i", vault.path("missing.tmpl")])
        toStdout.expectFailure(1)
        // An existing OUT is left as it was; an expired secret is exit 3.
        try Data("before".utf8).write(to: URL(fileURLWithPath: out))
        try Data("X={{ vault://\(vault.service)/old }}".utf8).write(to: URL(fileURLWithPath: vault.path("old.tmpl")))
        try vault.run(["inject", "-i", vault.path("old.tmpl"), "-o", out]).expectFailure(
            3, "expired at 2020-01-01T00:00:00Z; set a new value, or use --allow-expired")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "before")
        let allowed = try vault.run(["inject", "-i", vault.path("old.tmpl"), "-o", out, "--allow-expired"])
        allowed.expectSuccess()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "X=stale")
        // A reference without its closing braces, or a malformed one, is a usage error.
        try vault.run(["inject"], stdin: Array("{{ vault://a/b".utf8)).expectFailure(2, "not closed")
        try vault.run(["inject"], stdin: Array("{{ vault://only }}".utf8)).expectFailure(2, "vault://SERVICE/NAME")
        try vault.run(["inject", "-i", vault.path("absent.tmpl")]).expectFailure(2, "does not exist")
        // A folder that cannot take OUT: the error, and no temporary file left behind.
        try vault.run(["inject", "-o", vault.path("no/such/dir/out")], stdin: Array("x".utf8)).expectFailure(9)
        #expect(try files(in: vault, prefix: ".out.env.").isEmpty)
    }

    @Test("exec --env-file resolves references, passes literals, and runs nothing unless all resolve")
    func execEnvFile() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let envFile = vault.path("app.env")
        let contents = """
            # comment
            LITERAL='kept as it is'
            DEPLOY=vault://team%2Fops/ci/deploy
            export PLAIN = vault-not-a-reference
            """
        try Data(contents.utf8).write(to: URL(fileURLWithPath: envFile))
        let script = "printf '%s|%s|%s' \"$LITERAL\" \"$DEPLOY\" \"$PLAIN\""
        let result = try vault.run(["exec", "--no-mask", "--env-file", envFile, "--", "/bin/sh", "-c", script])
        result.expectSuccess()
        #expect(result.stdoutText == "kept as it is|d3ploy|vault-not-a-reference")
        // With --env too; one variable set both ways is refused.
        try vault.set("plain", "p")
        let both = try vault.run(
            [
                "exec", "--no-mask", "--env-file", envFile, "--env", "T=plain", "--", "/bin/sh", "-c",
                "printf %s \"$DEPLOY\"",
            ])
        #expect(both.stdoutText == "d3ploy")
        try vault.run(["exec", "--env-file", envFile, "--env", "DEPLOY=plain", "--", "true"]).expectFailure(
            2, "DEPLOY")

        // A missing or expired reference: the command never runs.
        let marker = vault.path("ran")
        for (line, status) in [("B=vault://\(vault.service)/nope", Int32(1)), ("B=vault://\(vault.service)/old", 3)] {
            try Data("A=1\n\(line)\n".utf8).write(to: URL(fileURLWithPath: envFile))
            let failed = try vault.run(["exec", "--env-file", envFile, "--", "/bin/sh", "-c", "touch \(marker)"])
            failed.expectFailure(status, "env file line 2")
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
        // A value holding a NUL byte cannot be an environment variable.
        try Data("B=vault://\(vault.service)/token\n".utf8).write(to: URL(fileURLWithPath: envFile))
        try vault.run(["exec", "--env-file", envFile, "--", "true"]).expectFailure(2, "NUL")
        try Data("not.a.variable=1\n".utf8).write(to: URL(fileURLWithPath: envFile))
        try vault.run(["exec", "--env-file", envFile, "--", "true"]).expectFailure(2, "not a variable name")
    }
}
