import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// End-to-end tests of the file backend through the built binary.
@Suite("File backend, end to end")
struct FileBackendTests {
    static let values: [(String, [UInt8])] = [
        ("text", Array("ghp_16C7e42F292c6912E7710c838347Ae178B4a".utf8)),
        ("empty", []),
        ("binary", [0, 1, 2, 0, 0xFF, 0xFE, 0x80, 0x0A, 0x0D, 0]),
        ("trailing newlines", Array("token\n\n\n".utf8)),
        ("one MiB", (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
    ]

    @Test(
        "values round-trip byte for byte with an identity and with a passphrase", arguments: ["identity", "passphrase"])
    func roundTrip(unlock: String) throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        if unlock == "identity" {
            vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        } else {
            vault.environment["VAULT_PASSPHRASE"] = "correct horse battery staple"
        }
        for (name, value) in Self.values {
            try vault.run(["set", name] + (value.isEmpty ? ["--allow-empty"] : []), stdin: value).expectSuccess()
        }
        for (name, value) in Self.values {
            let got = try vault.run(["get", name])
            got.expectSuccess()
            #expect(got.stdout == value, "\(name) changed")
            #expect(got.stderr.isEmpty)
        }
        let listed = try vault.run(["ls"])
        #expect(listed.stdoutText == Self.values.map(\.0).sorted().map { $0 + "\n" }.joined())
    }

    @Test("set replaces in place and keeps the creation time; rm deletes")
    func replaceAndRemove() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try vault.run(["set", "token"], stdin: Array("one".utf8)).expectSuccess()
        let first = try vault.run(["ls", "--json"]).stdoutText
        try vault.run(["set", "token"], stdin: Array("two".utf8)).expectSuccess()
        #expect(try vault.run(["get", "token"]).stdout == Array("two".utf8))
        let second = try vault.run(["ls", "--json"]).stdoutText
        #expect(
            first.components(separatedBy: "\"created\":")[1].prefix(22)
                == second.components(separatedBy: "\"created\":")[1].prefix(22))
        try vault.run(["rm", "token"]).expectSuccess()
        try vault.run(["get", "token"]).expectFailure(1, "no secret named 'token'")
        try vault.run(["rm", "token"]).expectFailure(1)
    }

    @Test("services keep names apart; --service beats VAULT_SERVICE")
    func services() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try vault.run(["--service", "github.com", "set", "me"], stdin: [1]).expectSuccess()
        try vault.run(["set", "me"], stdin: [2], env: ["VAULT_SERVICE": "gitlab.com"]).expectSuccess()
        try vault.run(["set", "me"], stdin: [3]).expectSuccess()
        #expect(
            try vault.run(["get", "me", "--service", "github.com"], env: ["VAULT_SERVICE": "gitlab.com"]).stdout == [1])
        #expect(try vault.run(["get", "me"], env: ["VAULT_SERVICE": "gitlab.com"]).stdout == [2])
        #expect(try vault.run(["get", "me"]).stdout == [3])
        #expect(try vault.run(["ls", "--all"]).stdoutText == "github.com\tme\ngitlab.com\tme\nvault\tme\n")
        let json = try vault.run(["ls", "--json", "--service", "github.com"]).stdoutText
        #expect(json.hasPrefix("[\n  {\"service\":\"github.com\",\"account\":\"me\",\"created\":\""))
        #expect(json.hasSuffix("\"expires\":null,\"expired\":false}\n]\n"))
    }

    @Test("the vault file is created 0600 in a 0700 directory, whatever the umask")
    func permissions() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        let file = vault.path("deep/er/vault.age")
        try vault.run(["set", "x"], stdin: [1], env: ["VAULT_FILE": file]).expectSuccess()
        let fileMode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: vault.path("deep/er"))[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(dirMode == 0o700)
    }

    @Test("a wrong passphrase exits 4 and leaves the file unchanged")
    func wrongPassphrase() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_PASSPHRASE"] = "right"
        try vault.run(["set", "a"], stdin: [1]).expectSuccess()
        let before = try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile))
        try vault.run(["get", "a"], env: ["VAULT_PASSPHRASE": "wrong"]).expectFailure(4, "does not unlock")
        try vault.run(["set", "b"], stdin: [2], env: ["VAULT_PASSPHRASE": "wrong"]).expectFailure(4)
        try vault.run(["rm", "a"], env: ["VAULT_PASSPHRASE": "wrong"]).expectFailure(4)
        #expect(try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile)) == before)
        let otherKey = X25519Identity.generate().encoded
        try vault.run(["get", "a"], env: ["VAULT_IDENTITY": otherKey], unset: ["VAULT_PASSPHRASE"]).expectFailure(4)
    }

    @Test("with no key and no terminal, vault exits 4 naming the variables instead of waiting")
    func noWayToAsk() throws {
        let vault = try VaultRunner()
        defer { vault.cleanUp() }
        try vault.run(["set", "a"], stdin: [1], env: ["VAULT_PASSPHRASE": "pw"]).expectSuccess()
        let result = try vault.run(["get", "a"])
        result.expectFailure(4, "VAULT_IDENTITY, VAULT_IDENTITY_FILE, VAULT_PASSPHRASE, VAULT_PASSPHRASE_FILE")
        // A missing vault needs no key: absent is absent.
        try vault.run(["get", "a"], env: ["VAULT_FILE": vault.path("none.age")]).expectFailure(1)
        #expect(try vault.run(["ls"], env: ["VAULT_FILE": vault.path("none.age")]).stdout.isEmpty)
    }

    @Test("identity and passphrase files unlock; files readable by others are refused")
    func keyFiles() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let identity = X25519Identity.generate()
        let keyFile = vault.path("key.txt")
        try "# created: test\n# public key: \(identity.recipient.encoded)\n\(identity.encoded)\n"
            .write(toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        vault.environment["VAULT_IDENTITY_FILE"] = keyFile
        try vault.run(["set", "a"], stdin: [7]).expectSuccess()
        #expect(try vault.run(["get", "a"], env: ["VAULT_IDENTITY": identity.encoded]).stdout == [7])
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
        try vault.run(["get", "a"]).expectFailure(4, "chmod 600")

        let passFile = vault.path("pass.txt")
        try "s3cret\n".write(toFile: passFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passFile)
        let other = vault.path("p.age")
        try vault.run(
            ["set", "b"], stdin: [8], env: ["VAULT_FILE": other, "VAULT_PASSPHRASE_FILE": passFile],
            unset: ["VAULT_IDENTITY_FILE"]
        ).expectSuccess()
        // The trailing newline of the file is not part of the passphrase.
        #expect(
            try vault.run(
                ["get", "b"], env: ["VAULT_FILE": other, "VAULT_PASSPHRASE": "s3cret"],
                unset: ["VAULT_IDENTITY_FILE"]
            ).stdout == [8])
    }

    @Test("a bit flipped at 97 offsets spread over the whole file is detected and prints nothing")
    func flippedBytes() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try vault.run(["set", "a"], stdin: Array("secret value".utf8)).expectSuccess()
        let original = try Data(contentsOf: URL(fileURLWithPath: vault.vaultFile))
        // Every byte in process: HostileFileTests. Through the binary, one process per offset:
        // the first byte, the last, and 95 evenly between.
        #expect(original.count > 97)
        let offsets = Set((0..<97).map { $0 * (original.count - 1) / 96 })
        var statuses: [Int32: Int] = [:]
        for offset in offsets.sorted() {
            var damaged = original
            damaged[offset] ^= 0x01
            try damaged.write(to: URL(fileURLWithPath: vault.vaultFile))
            let result = try vault.run(["get", "a"])
            #expect(result.stdout.isEmpty, "offset \(offset) released output")
            #expect(result.status == 6, "offset \(offset): \(result.stderr)")
            statuses[result.status, default: 0] += 1
        }
        #expect(statuses.values.reduce(0, +) == 97)
    }

    @Test("a file that is not a vault exits 6 and is not modified")
    func notAVault() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try Array("hello, I am a text file\n".utf8).withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: vault.vaultFile))
        }
        try vault.run(["get", "a"]).expectFailure(6)
        try vault.run(["set", "a"], stdin: [1]).expectFailure(6)
        #expect(try String(contentsOfFile: vault.vaultFile, encoding: .utf8) == "hello, I am a text file\n")
    }

    @Test("parallel sets of different names lose nothing")
    func parallelSets() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        let count = 24
        // A barrier: every set reads its value from a pipe that stays open until all of them
        // have started, so all 24 are running at once before any can finish.
        var started: [(child: ChildProcess, input: Pipe)] = []
        for i in 0..<count {
            let input = Pipe()
            started.append((try vault.start(["set", "name-\(i)"], stdinPipe: input), input))
        }
        for (i, set) in started.enumerated() {
            #expect(set.child.isRunning, "set \(i) ended before the others started")
            try set.input.fileHandleForWriting.write(contentsOf: Data("value-\(i)".utf8))
        }
        for set in started { try set.input.fileHandleForWriting.close() }
        for (i, set) in started.enumerated() {
            let result = try #require(try set.child.wait(seconds: 60), "set \(i) did not finish")
            result.expectSuccess()
        }
        let names = try vault.run(["ls"]).stdoutText.split(separator: "\n")
        #expect(names.count == count)
        for i in 0..<count {
            #expect(try vault.run(["get", "name-\(i)"]).stdout == Array("value-\(i)".utf8))
        }
    }

    @Test("init creates a vault for recipients; a second init conflicts")
    func initWithRecipients() throws {
        let vault = try VaultRunner()
        defer { vault.cleanUp() }
        let alice = X25519Identity.generate()
        let bob = X25519Identity.generate()
        let recipients = vault.path("team.txt")
        try "# team\n\(bob.recipient.encoded)\n".write(toFile: recipients, atomically: true, encoding: .utf8)
        try vault.run(["init", "--recipient", alice.recipient.encoded, "--recipients-file", recipients]).expectSuccess()
        try vault.run(["init", "--recipient", alice.recipient.encoded]).expectFailure(7, "already exists")
        try vault.run(["set", "shared"], stdin: [42], env: ["VAULT_IDENTITY": alice.encoded]).expectSuccess()
        #expect(try vault.run(["get", "shared"], env: ["VAULT_IDENTITY": bob.encoded]).stdout == [42])
        try vault.run(["init", "--recipient", "age1notakey"], env: ["VAULT_FILE": vault.path("x.age")])
            .expectFailure(2, "not an age public key")
        try vault.run(
            ["init", "--passphrase", "--recipient", alice.recipient.encoded], env: ["VAULT_FILE": vault.path("y.age")]
        )
        .expectFailure(2)
    }
}
