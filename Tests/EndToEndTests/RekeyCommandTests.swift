import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// `vault rekey`, through the built binary.
@Suite("Rekey command")
struct RekeyCommandTests {
    static let values: [(String, [UInt8])] = [
        ("text", Array("ghp_token".utf8)),
        ("binary", [0, 0xFF, 0, 0x0A]),
        ("large", (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
    ]

    /// Fills the vault, then returns its listing with metadata to compare after the rekey.
    func fill(_ vault: VaultRunner) throws -> String {
        for (name, value) in Self.values { try vault.run(["set", name], stdin: value).expectSuccess() }
        return try vault.run(["ls", "--json"]).stdoutText
    }

    func expectValues(_ vault: VaultRunner, env: [String: String], unset: [String] = [], listing: String) throws {
        for (name, value) in Self.values {
            let got = try vault.run(["get", name], env: env, unset: unset)
            #expect(got.status == 0, "\(got.stderr)")
            #expect(got.stdout == value, "\(name) changed")
        }
        #expect(try vault.run(["ls", "--json"], env: env, unset: unset).stdoutText == listing)
    }

    @Test("to a new passphrase: the old one exits 4, the new one opens the same secrets")
    func newPassphrase() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_PASSPHRASE"] = "old passphrase"
        let listing = try fill(vault)
        let rekeyed = try vault.run(["rekey", "--passphrase"], env: ["VAULT_TO_PASSPHRASE": "new passphrase"])
        rekeyed.expectSuccess()
        #expect(rekeyed.stderr.hasPrefix("vault: rekeyed \(vault.vaultFile)"))
        try vault.run(["get", "text"]).expectFailure(4, "does not unlock")
        try expectValues(vault, env: ["VAULT_PASSPHRASE": "new passphrase"], listing: listing)

        let passFile = vault.path("pass")
        try "newest\n".write(toFile: passFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passFile)
        try vault.run(["rekey"], env: ["VAULT_PASSPHRASE": "new passphrase", "VAULT_TO_PASSPHRASE_FILE": passFile])
            .expectSuccess()
        try vault.run(["get", "text"], env: ["VAULT_PASSPHRASE": "new passphrase"]).expectFailure(4)
        try expectValues(vault, env: ["VAULT_PASSPHRASE": "newest"], listing: listing)
    }

    @Test("to recipients: every new identity opens it, the old one exits 4")
    func newRecipients() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let old = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = old.encoded
        let listing = try fill(vault)
        let (alice, bob, carol) = (X25519Identity.generate(), X25519Identity.generate(), X25519Identity.generate())
        let recipients = vault.path("recipients.txt")
        try "# team\n\(bob.recipient.encoded)\n".write(toFile: recipients, atomically: true, encoding: .utf8)
        try vault.run(["rekey", "--recipient", alice.recipient.encoded, "--recipients-file", recipients])
            .expectSuccess()
        try vault.run(["get", "text"]).expectFailure(4)
        try expectValues(vault, env: ["VAULT_IDENTITY": alice.encoded], listing: listing)
        try expectValues(vault, env: ["VAULT_IDENTITY": bob.encoded], listing: listing)

        // With no option, the new key is VAULT_TO_IDENTITY's public key.
        try vault.run(["rekey"], env: ["VAULT_IDENTITY": bob.encoded, "VAULT_TO_IDENTITY": carol.encoded])
            .expectSuccess()
        try vault.run(["get", "text"], env: ["VAULT_IDENTITY": bob.encoded]).expectFailure(4)
        try expectValues(vault, env: ["VAULT_IDENTITY": carol.encoded], listing: listing)
    }

    @Test("failures exit with their code and leave the file as it was")
    func failures() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let key = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = key.encoded
        try vault.run(["set", "a"], stdin: [1]).expectSuccess()
        let before = FileManager.default.contents(atPath: vault.vaultFile)
        let cases: [([String], [String: String], Int32, String)] = [
            (["rekey", "--passphrase", "--recipient", key.recipient.encoded], [:], 2, "not both"),
            (["rekey", "--passphrase"], ["VAULT_TO_IDENTITY": key.encoded], 2, "not an identity"),
            (["rekey", "--recipient", "age1nope"], [:], 2, "not an age public key"),
            (["rekey", "extra"], [:], 2, "takes 0 operand"),
            (["--backend", "secret-service", "rekey", "--passphrase"], [:], 2, "the Secret Service has its own keys"),
            (
                ["rekey", "--passphrase"],
                ["VAULT_TO_PASSPHRASE": "x", "VAULT_IDENTITY": X25519Identity.generate().encoded], 4,
                "does not unlock"
            ),
            (
                ["rekey"], [:], 4,
                "VAULT_TO_IDENTITY, VAULT_TO_IDENTITY_FILE, VAULT_TO_PASSPHRASE, VAULT_TO_PASSPHRASE_FILE"
            ),
            (
                ["rekey", "--passphrase"], ["VAULT_FILE": vault.path("none.age"), "VAULT_TO_PASSPHRASE": "x"], 1,
                "no vault file"
            ),
        ]
        for (arguments, env, status, fragment) in cases {
            try vault.run(arguments, env: env).expectFailure(status, fragment)
        }
        #expect(FileManager.default.contents(atPath: vault.vaultFile) == before)
        #expect(try vault.run(["get", "a"]).stdout == [1])
    }
}
