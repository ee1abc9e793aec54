import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// Post-quantum hybrid keys (`age1pq1...`, `AGE-SECRET-KEY-PQ-1...`) through the built binary:
/// `vault keygen --pq`, a first `set`, `init --recipient`, and the refusal to mix key kinds.
@Suite("Post-quantum keys, end to end")
struct PostQuantumTests {
    /// `vault keygen --pq` to stdout; returns (identity file text, the recipient printed on stderr).
    func keygen(_ vault: VaultRunner, postQuantum: Bool = true) throws -> (file: String, recipient: String) {
        let result = try vault.run(["keygen"] + (postQuantum ? ["--pq"] : []))
        result.expectSuccess()
        // Standard output is a pipe here, so the public key also goes to standard error, as age-keygen does.
        let printed = try #require(result.stderr.split(separator: "\n").first.map(String.init))
        #expect(printed.hasPrefix("Public key: "))
        return (result.stdoutText, String(printed.dropFirst("Public key: ".count)))
    }

    @Test("keygen --pq -o writes a 0600 key file once; a first set encrypts the file to its key")
    func keygenThenFirstSet() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let keyFile = vault.path("key.txt")
        let made = try vault.run(["keygen", "--pq", "-o", keyFile])
        made.expectSuccess()
        #expect(made.stdout.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: keyFile, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count == 4, "\(lines.count) lines")
        #expect(lines[0].hasPrefix("# created: 20"))
        #expect(lines[1].hasPrefix("# public key: age1pq1"))
        #expect(lines[2].hasPrefix("AGE-SECRET-KEY-PQ-1"))
        #expect(lines[3].isEmpty)
        // The recipient on stderr and in the comment line is the one derived from the secret key.
        let identities = try Age.parseIdentityFile(text)
        let recipient = try #require((identities.first as? HybridIdentity)?.recipient.encoded)
        #expect(made.stderr == "Public key: \(recipient)\n")
        #expect(lines[1] == "# public key: \(recipient)")

        // Never overwritten: exit 7, the key still there.
        try vault.run(["keygen", "--pq", "-o", keyFile]).expectFailure(7, "already exists")
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == text)

        vault.environment["VAULT_IDENTITY_FILE"] = keyFile
        try vault.run(["set", "token"], stdin: Array("pq-secret".utf8)).expectSuccess()
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile)))
        #expect(try Age.stanzaTypes(of: file) == [.mlkem768x25519])
        #expect(try vault.run(["get", "token"]).stdout == Array("pq-secret".utf8))
        // The same key given inline opens it; a classic key does not.
        let secret = String(lines[2])
        #expect(try vault.run(["get", "token"], env: ["VAULT_IDENTITY": secret]).stdout == Array("pq-secret".utf8))
        try vault.run(["get", "token"], env: ["VAULT_IDENTITY": X25519Identity.generate().encoded])
            .expectFailure(4, "does not unlock")
    }

    @Test(
        "init refuses an age1pq1 recipient with a low-order X25519 half or an ML-KEM coefficient >= q: exit 2, one line"
    )
    func unusableHybridRecipients() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let (_, good) = try keygen(vault)
        // Re-encoded with the Bech32 code of the test plugin (Python, standard library only).
        let plugin = VaultRunner.packageRoot.appendingPathComponent("Tests/Plugins/age-plugin-vaulttest").path
        let script = """
            import sys
            p = {"__name__": "plugin"}
            exec(open(sys.argv[1]).read(), p)
            hrp, key = p["bech32_decode"](sys.argv[2])
            key = bytearray(key)
            zero = key[:1184] + bytes(32)
            key[0] = 0xFF; key[1] |= 0x0F
            print(p["bech32_encode"](hrp, zero)); print(p["bech32_encode"](hrp, bytes(key)))
            """
        let made = try runTool("/usr/bin/python3", ["-c", script, plugin, good])
        made.expectSuccess()
        let bad = made.stdoutText.split(separator: "\n").map(String.init)
        try #require(bad.count == 2, "\(made.stderr)")
        for (recipient, fragment) in zip(bad, ["X25519 key is a low-order point", "coefficient not below q"]) {
            try vault.run(["init", "--recipient", recipient]).expectFailure(2, fragment)
            #expect(!FileManager.default.fileExists(atPath: vault.vaultFile))
        }
    }

    @Test("init --recipient age1pq1... for a team; post-quantum and classic recipients do not mix (exit 2)")
    func teamFileAndMixing() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let (alice, aliceKey) = try keygen(vault)
        let (bob, bobKey) = try keygen(vault)
        let classic = X25519Identity.generate()
        for (name, text) in [("alice.txt", alice), ("bob.txt", bob)] {
            try text.write(toFile: vault.path(name), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: vault.path(name))
        }

        let mixed = vault.path("mixed.txt")
        try "# team\n\(aliceKey)\n\(classic.recipient.encoded)\n".write(
            toFile: mixed, atomically: true, encoding: .utf8)
        let refusals: [[String]] = [
            ["init", "--recipient", aliceKey, "--recipient", classic.recipient.encoded],
            ["init", "--recipient", classic.recipient.encoded, "--recipient", aliceKey],
            ["init", "--recipients-file", mixed],
        ]
        for arguments in refusals {
            try vault.run(arguments).expectFailure(2, "post-quantum and classic recipients cannot share a file")
            #expect(!FileManager.default.fileExists(atPath: vault.vaultFile))
        }
        try vault.run(["init", "--recipient", "age1tag1qt8lw0ual6avlwmwatk888yqnmdamm7xfd0wak53ut6elz5c4swx2yqdj4e"])
            .expectFailure(
                2,
                "tagged recipients (age1tag1..., age1tagpq1..., for hardware keys) are not supported; use the key's age plugin recipient (age1NAME1...)"
            )

        try vault.run(["init", "--recipient", aliceKey, "--recipient", bobKey]).expectSuccess()
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile)))
        #expect(try Age.stanzaTypes(of: file) == [.mlkem768x25519, .mlkem768x25519])
        try vault.run(["set", "shared"], stdin: [1, 2, 3], env: ["VAULT_IDENTITY_FILE": vault.path("alice.txt")])
            .expectSuccess()
        #expect(
            try vault.run(["get", "shared"], env: ["VAULT_IDENTITY_FILE": vault.path("bob.txt")]).stdout == [1, 2, 3])

        // A rekey to a mix is refused too, and leaves the file as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile))
        try vault.run(
            ["rekey", "--recipient", bobKey, "--recipient", classic.recipient.encoded],
            env: ["VAULT_IDENTITY_FILE": vault.path("alice.txt")]
        ).expectFailure(2, "post-quantum and classic recipients cannot share a file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile)) == before)

        // An identity file with both kinds cannot pick the recipients of a new file.
        let both = vault.path("both.txt")
        try "\(alice)\(classic.encoded)\n".write(toFile: both, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: both)
        try vault.run(
            ["set", "x"], stdin: [1], env: ["VAULT_IDENTITY_FILE": both, "VAULT_FILE": vault.path("new.age")]
        )
        .expectFailure(2, "post-quantum and classic recipients cannot share a file")
        // It still opens an existing file with whichever key fits.
        #expect(try vault.run(["get", "shared"], env: ["VAULT_IDENTITY_FILE": both]).stdout == [1, 2, 3])
    }

    @Test("keygen without --pq makes an X25519 key that Debian's age opens files with")
    func classicKeygenInteropsWithAge() throws {
        let age = "/usr/bin/age"
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: age) ? nil : "\(age) is not installed (Debian package age)")
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let keyFile = vault.path("key.txt")
        try vault.run(["keygen", "-o", keyFile]).expectSuccess()
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).contains("\nAGE-SECRET-KEY-1"))
        vault.environment["VAULT_IDENTITY_FILE"] = keyFile
        try vault.run(["set", "a"], stdin: Array("classic".utf8)).expectSuccess()
        let opened = try runTool(age, ["-d", "-i", keyFile, vault.vaultFile])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdoutText.contains("\"account\":\"a\""))
        try vault.run(["keygen", "extra"]).expectFailure(2, "takes 0 operand")
    }
}
