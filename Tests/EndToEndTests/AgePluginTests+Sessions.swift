import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// The keys of one plugin share one run of it (C2SP age-plugin.md): the test plugin logs each
/// start (`VAULTTEST_LOG`), and a `pin` key asks for its PIN once per run, as a hardware key
/// holding several identities would.
extension AgePluginTests {
    /// The state machines the test plugin was started in since the last call; the log starts over.
    static func starts(_ log: String) -> [String] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: log)
        return text.split(separator: "\n").map(String.init)
    }

    /// An identity file (mode 600) holding `lines`.
    static func identityFile(_ vault: VaultRunner, _ name: String, _ lines: [String]) throws -> String {
        let path = vault.path(name)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    @Test("two keys of one plugin: one run each way, one PIN; age opens the file; X25519 beside them")
    func oneRunPerPlugin() throws {
        var vault = try Self.runner()
        defer { vault.cleanUp() }
        let log = vault.path("runs.log")
        vault.environment["VAULTTEST_LOG"] = log
        let env = ["PATH": vault.environment["PATH"]!, "VAULTTEST_LOG": log]
        let plainA = try Self.key("plain", hex: "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
        let plainB = try Self.key("plain", hex: "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf")
        let plainC = try Self.key("plain", hex: "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf")
        let x25519 = X25519Identity.generate()

        // Two plugin recipients with an X25519 one between them: one recipient-v1 run (the
        // identity-v1 run opened the file with the runner's plain key).
        try vault.run([
            "rekey", "--recipient", plainA.recipient, "--recipient", x25519.recipient.encoded,
            "--recipient", plainB.recipient,
        ]).expectSuccess()
        #expect(Self.starts(log) == ["identity-v1", "recipient-v1"])
        // Debian's age opens it with either key kind.
        for (name, identity) in [("b.txt", plainB.identity), ("x.txt", x25519.encoded)] {
            let opened = try runTool(
                Self.age, ["-d", "-i", try Self.identityFile(vault, name, [identity]), vault.vaultFile],
                environment: env)
            #expect(opened.status == 0 && opened.stdoutText.contains("\"account\":\"tok\""), "\(opened.stderr)")
        }
        _ = Self.starts(log)
        // Two plugin identities, the first not a recipient: both are tried in one identity-v1 run.
        let plains = try Self.identityFile(vault, "plains.txt", [plainC.identity, plainB.identity])
        let got = try vault.run(["get", "tok"], env: ["VAULT_IDENTITY_FILE": plains], unset: ["VAULT_IDENTITY"])
        #expect(got.status == 0 && got.stdout == Array("s3cret".utf8), "\(got.stderr)")
        #expect(Self.starts(log) == ["identity-v1"])

        // age starts the plugin once per recipient; vault opens what it wrote in one run.
        let plain = vault.path("doc.jsonl")
        try "{\"vault\":1}\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let fromAge = vault.path("from-age.age")
        let sealed = try runTool(
            Self.age, ["-r", plainA.recipient, "-r", plainB.recipient, "-o", fromAge, plain], environment: env)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(Self.starts(log) == ["recipient-v1", "recipient-v1"], "age's own runs, one per key")
        try vault.run(
            ["set", "new"], stdin: [7], env: ["VAULT_FILE": fromAge, "VAULT_IDENTITY_FILE": plains],
            unset: ["VAULT_IDENTITY"]
        ).expectSuccess()
        #expect(Self.starts(log) == ["identity-v1"])

        // A hardware key holding two identities: one PIN to wrap to both, one PIN to open.
        let pinA = try Self.key("pin", hex: "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf")
        let pinB = try Self.key("pin", hex: "e0e1e2e3e4e5e6e7e8e9eaebecedeeef")
        let pinC = try Self.key("pin", hex: "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        var terminal = vault.environment
        terminal["VAULT_IDENTITY"] = x25519.encoded
        let prompt = "PIN of the vaulttest key: "
        let rekeyed = try runOnTerminal(
            typing: "1234", at: prompt, VaultRunner.binary,
            ["rekey", "--recipient", pinA.recipient, "--recipient", pinB.recipient], environment: terminal)
        #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
        #expect(rekeyed.stderr.components(separatedBy: prompt).count == 2, "one PIN: \(rekeyed.stderr)")
        #expect(Self.starts(log) == ["recipient-v1"])
        terminal["VAULT_IDENTITY"] = nil
        terminal["VAULT_IDENTITY_FILE"] = try Self.identityFile(vault, "pins.txt", [pinC.identity, pinB.identity])
        let opened = try runOnTerminal(
            typing: "1234", at: prompt, VaultRunner.binary, ["get", "tok"], environment: terminal)
        #expect(opened.status == 0 && opened.stderr.contains("s3cret"), "\(opened.stderr)")
        #expect(opened.stderr.components(separatedBy: prompt).count == 2, "one PIN: \(opened.stderr)")
        #expect(Self.starts(log) == ["identity-v1"])
    }
}
