import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// age plugins (C2SP age-plugin.md) through the test plugin `Tests/Plugins/age-plugin-vaulttest`,
/// whose key picks what it does (see its header): interop with Debian's age both ways, questions
/// at a terminal and without one, and plugins that fail in every way, end to end.
@Suite("age plugins, end to end")
struct AgePluginTests {
    static let age = "/usr/bin/age"
    /// The folder holding the test plugin (absolute).
    static var plugins: String { VaultRunner.packageRoot.appendingPathComponent("Tests/Plugins").path }
    static var plugin: String { plugins + "/age-plugin-vaulttest" }

    /// A fresh key of the test plugin in `mode`: its identity and its recipient.
    static func key(_ mode: String, hex: String = "00112233445566778899aabbccddeeff") throws -> (
        identity: String, recipient: String
    ) {
        let generated = try runTool(plugin, ["--generate", mode, hex])
        try #require(generated.status == 0, "\(generated.stderr)")
        let lines = generated.stdoutText.split(separator: "\n").map(String.init)
        return (lines[0], lines[1])
    }

    /// A runner whose PATH finds the test plugin (and python3), with a vault file encrypted to the
    /// plugin's `plain` key and holding `tok` = `s3cret`.
    static func runner() throws -> VaultRunner {
        try requireComponent(FileManager.default.isExecutableFile(atPath: age) ? nil : "\(age) is not installed")
        var vault = try VaultRunner()
        vault.environment["PATH"] = "\(plugins):/usr/local/bin:/usr/bin:/bin"
        vault.environment["VAULT_IDENTITY"] = try key("plain").identity
        try vault.run(["set", "tok"], stdin: Array("s3cret".utf8)).expectSuccess()
        return vault
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("age encrypts to the plugin and vault opens the file; vault writes and age opens it")
    func interop() throws {
        var vault = try Self.runner()
        defer { vault.cleanUp() }
        let env = ["PATH": vault.environment["PATH"]!]
        // vault wrote through recipient-v1 (to the identity, with add-identity): age opens it.
        let keyFile = vault.path("plugin-key.txt")
        try (try Self.key("plain").identity + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let opened = try runTool(Self.age, ["-d", "-i", keyFile, vault.vaultFile], environment: env)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdoutText.contains("\"account\":\"tok\",\"value\":\"czNjcmV0\""))
        // age wrote through the plugin (a recipient of the grease mode, so the plugin greases
        // phase 2); vault opens it with an identity file and keeps writing to it.
        let plain = vault.path("doc.jsonl")
        try "{\"vault\":1}\n".write(toFile: plain, atomically: true, encoding: .utf8)
        vault.environment["VAULT_FILE"] = vault.path("from-age.age")
        let sealed = try runTool(
            Self.age, ["-r", try Self.key("grease").recipient, "-o", vault.vaultFile, plain], environment: env)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        vault.environment["VAULT_IDENTITY"] = nil
        vault.environment["VAULT_IDENTITY_FILE"] = keyFile
        try vault.run(["set", "new"], stdin: [7]).expectSuccess()
        #expect(try vault.run(["get", "new"]).stdout == [7])
        // vault encrypts to an age1vaulttest1... recipient (init, rekey); age decrypts it.
        try vault.run(["rekey", "--recipient", try Self.key("grease").recipient]).expectSuccess()
        let again = try runTool(Self.age, ["-d", "-i", keyFile, vault.vaultFile], environment: env)
        #expect(again.status == 0 && again.stdoutText.contains("\"account\":\"new\""), "\(again.stderr)")
    }

    @Test("a PIN and a confirmation are asked at the terminal; msg is shown there")
    func terminalQuestions() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        for (mode, typed, prompt) in [
            ("pin", "1234", "PIN of the vaulttest key: "), ("confirm", "y", "\\[n\\] No: "),
            ("public", "vault", "the word vault: "),
        ] {
            var env = vault.environment
            env["VAULT_IDENTITY"] = try Self.key(mode).identity
            let result = try runOnTerminal(
                typing: typed, at: prompt, VaultRunner.binary, ["get", "tok"], environment: env)
            #expect(result.status == 0, "\(mode): \(result.stderr)")
            #expect(result.stderr.contains("age-plugin-vaulttest: "), "\(mode): the question names the plugin")
            #expect(result.stderr.contains("s3cret"), "\(mode): \(result.stderr)")
        }
        var env = vault.environment
        env["VAULT_IDENTITY"] = try Self.key("pin").identity
        let wrong = try runOnTerminal(
            typing: "9999", at: "PIN of the vaulttest key: ", VaultRunner.binary, ["get", "tok"], environment: env)
        #expect(wrong.status == 4 && wrong.stderr.contains("wrong PIN"), "\(wrong.stderr)")
        env["VAULT_IDENTITY"] = try Self.key("msg").identity
        let shown = try runOnTerminal(typing: "", at: "(?!x)x", VaultRunner.binary, ["get", "tok"], environment: env)
        #expect(shown.status == 0 && shown.stderr.contains("age-plugin-vaulttest: touch your key"), "\(shown.stderr)")
    }

    @Test("without a terminal, or with CI set, a question is answered fail: exit 4, one line")
    func noTerminal() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        for mode in ["pin", "confirm", "public"] {
            try vault.run(["get", "tok"], env: ["VAULT_IDENTITY": try Self.key(mode).identity])
                .expectFailure(4, "age-plugin-vaulttest asked for a")
        }
        var env = vault.environment
        env["VAULT_IDENTITY"] = try Self.key("pin").identity
        env["CI"] = "true"
        // On a terminal, but in CI: nothing is asked (the driver would type the PIN if it were).
        let result = try runOnTerminal(
            typing: "1234", at: "PIN of the vaulttest key: ", VaultRunner.binary, ["get", "tok"], environment: env)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("no terminal to answer it (or CI is set)"), "\(result.stderr)")
        #expect(!result.stderr.contains("PIN of the vaulttest key"), "\(result.stderr)")
    }

    @Test("a plugin that crashes, hangs, answers garbage or an error: one line, the file untouched")
    func brokenPlugins() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        let before = try bytes(vault.vaultFile)
        let cases: [(mode: String, status: Int32, fragment: String)] = [
            ("crash", 5, "age-plugin-vaulttest was killed by signal 9"),
            ("garbage", 5, "age-plugin-vaulttest answered a line that is not a stanza"),
            ("hang", 5, "age-plugin-vaulttest did not finish within 1 s (VAULT_TIMEOUT); it was stopped"),
            ("error", 4, "age-plugin-vaulttest reported an error (internal): the vaulttest key is revoked"),
        ]
        for (mode, status, fragment) in cases {
            let key = try Self.key(mode)
            // Only the hanging plugin is given 1 s: the others must be told apart by what they did,
            // not by how fast a loaded machine starts them.
            let timeout = mode == "hang" ? "1" : "60"
            // Wrapping: rekey to the broken plugin's recipient fails and changes nothing.
            try vault.run(["rekey", "--recipient", key.recipient], env: ["VAULT_TIMEOUT": timeout])
                .expectFailure(status, fragment)
            #expect(try bytes(vault.vaultFile) == before, "\(mode): the file is untouched")
            // Unwrapping: neither get nor set gets through, and set writes nothing.
            let unwrapFragment = fragment.replacingOccurrences(of: "(internal)", with: "(identity)")
            let env = ["VAULT_IDENTITY": key.identity, "VAULT_TIMEOUT": timeout]
            try vault.run(["get", "tok"], env: env).expectFailure(status, unwrapFragment)
            try vault.run(["set", "other"], stdin: [1], env: env).expectFailure(status, unwrapFragment)
            #expect(try bytes(vault.vaultFile) == before, "\(mode): the file is untouched")
        }
    }

    @Test("a plugin gets vault's environment without the variables that hold key material")
    func pluginEnvironment() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        let log = vault.path("env.log")
        let got = try vault.run(
            ["get", "tok"],
            env: [
                "VAULTTEST_ENV": log, "VAULTTEST_MARKER": "1", "BAO_TOKEN": "bao-secret",
                "VAULT_TO_PASSPHRASE": "to-secret",
            ])
        #expect(got.status == 0 && got.stdout == Array("s3cret".utf8), "\(got.stderr)")
        let names = Set(
            try String(contentsOfFile: log, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" })
                .map(String.init))
        #expect(names.contains("VAULTTEST_MARKER") && names.contains("PATH"), "\(names.sorted())")
        // The runner's plugin identity is in VAULT_IDENTITY: the plugin is given it by the
        // protocol, never through its environment.
        for withheld in ["VAULT_IDENTITY", "BAO_TOKEN", "VAULT_TO_PASSPHRASE"] {
            #expect(!names.contains(withheld), "\(withheld) reached the plugin")
        }
    }

    @Test("a plugin is looked up in absolute PATH folders only; a missing one is named")
    func lookup() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        // The plugin sits in the working folder, and PATH names it as `.` and as a relative path.
        let relative = try runTool(
            "/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" get tok", "sh", Self.plugins, VaultRunner.binary],
            environment: vault.environment.merging(["PATH": ".:Plugins:../Plugins:/usr/bin:/bin"]) { $1 })
        relative.expectFailure(5, "age-plugin-vaulttest was not found in PATH (only its absolute folders are searched)")
        try vault.run(["get", "tok"], env: ["PATH": "/usr/bin:/bin"]).expectFailure(5, "age-plugin-vaulttest")
        try vault.run(["rekey", "--recipient", try Self.key("plain").recipient], env: ["PATH": "/usr/bin:/bin"])
            .expectFailure(5, "age-plugin-vaulttest was not found")
    }

    @Test("a file header naming the plugin's stanzas runs nothing without a local plugin identity")
    func headerRunsNothing() throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: Self.age) ? nil : "\(Self.age) is not installed")
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["PATH"] = "\(Self.plugins):/usr/local/bin:/usr/bin:/bin"
        let log = vault.path("plugin-runs.log")
        vault.environment["VAULTTEST_LOG"] = log
        let identity = X25519Identity.generate()
        let plain = vault.path("doc.jsonl")
        try "{\"vault\":1}\n".write(toFile: plain, atomically: true, encoding: .utf8)
        // A file with a vaulttest stanza beside an X25519 one, and one with only a vaulttest stanza.
        let recipient = try Self.key("plain").recipient
        let both = try runTool(
            Self.age, ["-r", recipient, "-r", identity.recipient.encoded, "-o", vault.vaultFile, plain],
            environment: vault.environment)
        try #require(both.status == 0, "\(both.stderr)")
        try #require(FileManager.default.fileExists(atPath: log), "age ran the plugin (the log works)")
        try FileManager.default.removeItem(atPath: log)
        vault.environment["VAULT_IDENTITY"] = identity.encoded
        try vault.run(["set", "x"], stdin: [1]).expectSuccess()
        #expect(try vault.run(["get", "x"]).stdout == [1])
        let only = vault.path("only.age")
        try #require(
            try runTool(Self.age, ["-r", recipient, "-o", only, plain], environment: vault.environment).status == 0)
        try FileManager.default.removeItem(atPath: log)
        try vault.run(["get", "x"], env: ["VAULT_FILE": only]).expectFailure(6)
        try vault.run(["get", "x"], env: ["VAULT_FILE": only, "VAULT_IDENTITY": "", "VAULT_PASSPHRASE": "p"])
            .expectFailure(6)
        #expect(!FileManager.default.fileExists(atPath: log), "vault never started the plugin")
    }

    @Test("a plugin that keeps sending messages is stopped at the deadline; a wrong file key is the plugin's")
    func chattyAndWrongKeyPlugins() throws {
        let vault = try Self.runner()
        defer { vault.cleanUp() }
        let cases: [(mode: String, status: Int32, fragment: String)] = [
            // 40 messages 0.2 s apart: every wait is short, the conversation (8 s) is not.
            ("chatty", 5, "age-plugin-vaulttest did not finish within 2 s (VAULT_TIMEOUT); it was stopped"),
            // Not "damaged" (exit 6): the key the plugin gave does not open the file.
            ("wrongkey", 4, "VAULT_IDENTITY: the file key age-plugin-vaulttest answered does not open the file"),
        ]
        for (mode, status, fragment) in cases {
            let key = try Self.key(mode)
            try vault.run(["rekey", "--recipient", key.recipient]).expectSuccess()
            try vault.run(["get", "tok"], env: ["VAULT_IDENTITY": key.identity, "VAULT_TIMEOUT": "2"])
                .expectFailure(status, fragment)
        }
    }
}
