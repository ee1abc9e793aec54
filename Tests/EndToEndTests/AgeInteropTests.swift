import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// A vault file is a plain age file: `age` reads what vault writes, and vault reads a document
/// that `age` encrypted. This is the promise that users can always recover their data without vault.
@Suite("Interop with age, end to end")
struct AgeInteropTests {
    static let age = "/usr/bin/age"

    /// Requires age: a failure under `make test`, elsewhere a skip.
    func requireAge() throws {
        let installed = FileManager.default.isExecutableFile(atPath: Self.age)
        try requireComponent(installed ? nil : "\(Self.age) is not installed (Debian package age)")
    }

    @Test("age -d -i decrypts a vault file to the documented JSON Lines document")
    func ageReadsVault() throws {
        try requireAge()
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let identity = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = identity.encoded
        let values: [String: [UInt8]] = ["gh": Array("ghp_abc".utf8), "bin": [0, 255, 10], "empty": []]
        for (name, value) in values {
            try vault.run(["set", name] + (value.isEmpty ? ["--allow-empty"] : []), stdin: value).expectSuccess()
        }
        try vault.run(["--service", "other", "set", "x", "--expires-at", "2030-01-02T03:04:05Z"], stdin: [1])
            .expectSuccess()
        let keyFile = vault.path("key.txt")
        try (identity.encoded + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)

        let result = try runTool(Self.age, ["-d", "-i", keyFile, vault.vaultFile])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "{\"vault\":1}")
        #expect(lines.last == "", "the document ends with a newline")
        var seen: [String: [UInt8]] = [:]
        for line in lines.dropFirst().dropLast() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(Set(object.keys).isSubset(of: ["service", "account", "value", "created", "updated", "expires"]))
            #expect(object["created"]?.hasSuffix("Z") == true && object["updated"]?.count == 20)
            let value = try #require(Data(base64Encoded: object["value"] ?? "?"))
            seen["\(object["service"]!)/\(object["account"]!)"] = [UInt8](value)
            if object["service"] == "other" { #expect(object["expires"] == "2030-01-02T03:04:05Z") }
        }
        #expect(
            seen
                == Dictionary(uniqueKeysWithValues: values.map { ("vault/\($0.key)", $0.value) }).merging([
                    "other/x": [1]
                ]) { $1 })
    }

    @Test("vault reads a document that age -r encrypted")
    func vaultReadsAgeRecipientFile() throws {
        try requireAge()
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let identity = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = identity.encoded
        let document = """
            {"vault":1}
            {"service":"vault","account":"api","value":"c2VjcmV0","created":"2026-01-01T00:00:00Z","updated":"2026-01-02T00:00:00Z"}
            {"account":"escaped \\"name\\" \\u00e9","service":"vault","value":"AAEC","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z","expires":null}

            """
        let plain = vault.path("doc.jsonl")
        try document.write(toFile: plain, atomically: true, encoding: .utf8)
        let encrypted = try runTool(Self.age, ["-r", identity.recipient.encoded, "-o", vault.vaultFile, plain])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")
        #expect(try vault.run(["get", "api"]).stdout == Array("secret".utf8))
        #expect(try vault.run(["get", "escaped \"name\" é"]).stdout == [0, 1, 2])
        // And vault can keep writing to it.
        try vault.run(["set", "new"], stdin: [9]).expectSuccess()
        #expect(try vault.run(["ls"]).stdoutText == "api\nescaped \"name\" é\nnew\n")
    }

    @Test("vault reads a file age -p encrypted with a passphrase typed at a terminal")
    func vaultReadsAgePassphraseFile() throws {
        try requireAge()
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let plain = vault.path("doc.jsonl")
        try
            "{\"vault\":1}\n{\"service\":\"vault\",\"account\":\"db\",\"value\":\"cGFzcw==\",\"created\":\"2026-01-01T00:00:00Z\",\"updated\":\"2026-01-01T00:00:00Z\"}\n"
            .write(toFile: plain, atomically: true, encoding: .utf8)
        let result = try runOnTerminal(typing: "typed at a tty", Self.age, ["-p", "-o", vault.vaultFile, plain])
        #expect(result.status == 0, "\(result.stderr)")
        vault.environment["VAULT_PASSPHRASE"] = "typed at a tty"
        #expect(try vault.run(["get", "db"]).stdout == Array("pass".utf8))
        try vault.run(["get", "db"], env: ["VAULT_PASSPHRASE": "not it"]).expectFailure(4)
    }

    @Test("a valid age file whose plaintext is not a vault document exits 6")
    func notADocument() throws {
        try requireAge()
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let identity = X25519Identity.generate()
        vault.environment["VAULT_IDENTITY"] = identity.encoded
        for (index, text) in [
            "just text\n", "{\"vault\":2}\n", "{\"vault\":1}\n{\"service\":\"s\"}\n", "{\"vault\":1}\n{\"bad json\n",
        ].enumerated() {
            let plain = vault.path("p\(index)")
            try text.write(toFile: plain, atomically: true, encoding: .utf8)
            let encrypted = try runTool(Self.age, ["-r", identity.recipient.encoded, "-o", vault.vaultFile, plain])
            try #require(encrypted.status == 0, "age -r: \(encrypted.stderr)")
            try vault.run(["get", "s"]).expectFailure(6)
            try vault.run(["ls"]).expectFailure(6)
            let before = try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile))
            try vault.run(["set", "x"], stdin: [1]).expectFailure(6)
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile)) == before)
        }
    }
}
