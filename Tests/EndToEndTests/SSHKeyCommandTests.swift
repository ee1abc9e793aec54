import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// SSH keys through the vault command: an OpenSSH private key as `VAULT_IDENTITY_FILE`, SSH
/// public keys given to `init`, recipients files with key types age cannot use, a protected key's
/// passphrase typed at a terminal, and header trust naming the SSH keys it recognises.
@Suite("SSH keys, end to end")
struct SSHKeyCommandTests {
    static let passphrase = "typed for the key"

    /// Makes `name` (and `name.pub`) in the runner's folder with ssh-keygen.
    static func keygen(_ runner: VaultRunner, _ name: String, type: String = "ed25519", passphrase: String = "")
        throws -> (privateKey: String, publicLine: String)
    {
        try requireComponent(findExecutable("ssh-keygen") == nil ? "ssh-keygen (Debian package openssh-client)" : nil)
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "\(name)@test", "-f", runner.path(name)]
        if type == "rsa" { arguments += ["-b", "2048"] }
        try runTool(findExecutable("ssh-keygen")!, arguments).expectSuccess()
        let line = try String(contentsOfFile: runner.path(name) + ".pub", encoding: .utf8)
        return (runner.path(name), line.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("an ssh-keygen key as VAULT_IDENTITY_FILE: the first set encrypts to it, and age -d -i opens the file")
    func sshIdentityFile() throws {
        try requireComponent(findExecutable("age") == nil ? "age (the age command)" : nil)
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let key = try Self.keygen(runner, "id_ed25519")
        runner.environment["VAULT_IDENTITY_FILE"] = key.privateKey
        try runner.run(["set", "token"], stdin: Array("s3cret".utf8)).expectSuccess()
        #expect(try runner.run(["get", "token"]).stdout == Array("s3cret".utf8))
        #expect(try Age.stanzaTypes(of: runner.fileBytes() ?? []) == [StanzaType("ssh-ed25519")])
        let opened = try runTool(findExecutable("age")!, ["-d", "-i", key.privateKey, runner.vaultFile])
        opened.expectSuccess()
        #expect(String(decoding: opened.stdout, as: UTF8.self).contains("\"account\":\"token\""))
    }

    @Test("a PEM key or one encrypted with another cipher: exit 4, one line saying how to convert it, with its path")
    func keysToConvert() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let keygen = try #require(findExecutable("ssh-keygen"))
        let pem = runner.path("id_pem")
        try runTool(keygen, ["-q", "-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "", "-f", pem]).expectSuccess()
        let chacha = runner.path("id_chacha")
        try runTool(keygen, ["-q", "-t", "ed25519", "-Z", "chacha20-poly1305@openssh.com", "-N", "pass", "-f", chacha])
            .expectSuccess()
        // A file to open, whose key neither can be: both are refused when they are read.
        try runner.run(["init", "--recipient", X25519Identity.generate().recipient.encoded]).expectSuccess()
        runner.environment["VAULT_IDENTITY_FILE"] = pem
        let fromPEM = try runner.run(["get", "token"])
        fromPEM.expectFailure(4, "a PEM private key; vault reads SSH keys in OpenSSH's format only")
        #expect(
            fromPEM.stderr.contains("; convert it to OpenSSH's format: ssh-keygen -p -f \(pem)"), "\(fromPEM.stderr)")
        runner.environment["VAULT_IDENTITY_FILE"] = chacha
        let fromChaCha = try runner.run(["get", "token"])
        fromChaCha.expectFailure(4, "encrypted with chacha20-poly1305@openssh.com, which vault cannot decrypt")
        #expect(
            fromChaCha.stderr.contains("; encrypt it again with aes256-ctr: ssh-keygen -p -Z aes256-ctr -f \(chacha)"),
            "\(fromChaCha.stderr)")
        for result in [fromPEM, fromChaCha] {
            #expect(result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    @Test("init takes SSH public keys and recipients files; ecdsa and sk lines are skipped with a warning")
    func recipientsFileWithUnsupportedKeys() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let alice = try Self.keygen(runner, "alice")
        let bob = try Self.keygen(runner, "bob", type: "rsa")
        let ecdsa = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBFake= laptop"
        let sk = "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tFake= yubikey"
        let team = runner.path("team.keys")
        try [alice.publicLine, ecdsa, "# bob", bob.publicLine, "", sk].joined(separator: "\n")
            .write(toFile: team, atomically: true, encoding: .utf8)

        let created = try runner.run(["init", "--recipients-file", team])
        created.expectSuccess()
        let warnings = created.stderr.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.count == 2, "\(created.stderr)")
        #expect(warnings.first?.contains("\(team) line 2: ecdsa-sha2-nistp256 keys are not supported") == true)
        #expect(warnings.last?.contains("line 6: sk-ssh-ed25519@openssh.com") == true)
        #expect(!created.stderr.contains("AAAA"), "a key was quoted: \(created.stderr)")
        #expect(created.stderr.contains("(alice@test)") && created.stderr.contains("ssh-rsa key SHA256:"))

        try runner.run(["set", "db"], stdin: [1], env: ["VAULT_IDENTITY_FILE": alice.privateKey]).expectSuccess()
        #expect(try runner.run(["get", "db"], env: ["VAULT_IDENTITY_FILE": bob.privateKey]).stdout == [1])

        let onlyUnsupported = runner.path("unsupported.keys")
        try "\(ecdsa)\n\(sk)\n".write(toFile: onlyUnsupported, atomically: true, encoding: .utf8)
        try runner.run(["rekey", "--recipients-file", onlyUnsupported], env: ["VAULT_IDENTITY_FILE": alice.privateKey])
            .expectFailure(2, "no usable recipients")
        try runner.run(["rekey", "--recipient", ecdsa], env: ["VAULT_IDENTITY_FILE": alice.privateKey])
            .expectFailure(2, "ecdsa-sha2-nistp256 keys are not supported")
        #expect(try runner.run(["get", "db"], env: ["VAULT_IDENTITY_FILE": bob.privateKey]).stdout == [1])
    }

    /// An `ssh-rsa` public key line with exponent `exponent` and an odd modulus of `bits` bits.
    static func rsaLine(exponent: [UInt8], bits: Int) -> String {
        func string(_ bytes: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
        func mpint(_ magnitude: [UInt8]) -> [UInt8] {
            string(magnitude.first.map { $0 >= 0x80 } == true ? [0] + magnitude : magnitude)
        }
        var modulus = patternBytes(count: bits / 8)
        modulus[0] |= 0x80
        modulus[modulus.count - 1] |= 1
        let blob = string(Array("ssh-rsa".utf8)) + mpint(exponent) + mpint(modulus)
        return "ssh-rsa \(Data(blob).base64EncodedString()) odd@test"
    }

    @Test("init refuses an ssh-rsa line with e = 1, an even or too large e, or above 16,384 bits: exit 2, one line")
    func unusableRSARecipients() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let alice = try Self.keygen(runner, "alice")
        let team = runner.path("team.keys")
        let cases: [(line: String, fragment: String)] = [
            (Self.rsaLine(exponent: [1], bits: 2048), "public exponent is not an odd number from 3 to 2^24 - 1"),
            (Self.rsaLine(exponent: [1, 0, 0], bits: 2048), "public exponent is not an odd number from 3 to 2^24 - 1"),
            (
                Self.rsaLine(exponent: [1, 0, 0, 1], bits: 2048),
                "public exponent is not an odd number from 3 to 2^24 - 1"
            ),
            // 12.7 s of modulus set-up before the limit; refused at once now.
            (Self.rsaLine(exponent: [1, 0, 1], bits: 524_288), "ssh-rsa key of 524288 bits is too large"),
        ]
        for (line, fragment) in cases {
            try "\(alice.publicLine)\n\(line)\n".write(toFile: team, atomically: true, encoding: .utf8)
            let refused = try runner.run(["init", "--recipients-file", team])
            refused.expectFailure(2, fragment)
            #expect(!refused.stderr.contains("AAAA"), "a key was quoted: \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: runner.vaultFile))
        }
    }

    @Test("a passphrase-protected key: exit 4 with one line without a terminal, opens when typed at one")
    func protectedKeyAtTerminal() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let locked = try Self.keygen(runner, "locked", passphrase: Self.passphrase)
        let plain = try Self.keygen(runner, "plain")
        try runner.run(["init", "--recipient", locked.publicLine, "--recipient", plain.publicLine]).expectSuccess()
        try runner.run(["set", "api"], stdin: Array("v4lue".utf8), env: ["VAULT_IDENTITY_FILE": plain.privateKey])
            .expectSuccess()

        runner.environment["VAULT_IDENTITY_FILE"] = locked.privateKey
        let refused = try runner.run(["get", "api"])
        refused.expectFailure(4, "protected by a passphrase")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")

        let typed = try runOnTerminal(
            typing: Self.passphrase, VaultRunner.binary, ["get", "api"], environment: runner.environment)
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(typed.stderr.contains("v4lue"), "\(typed.stderr)")
        let wrong = try runOnTerminal(
            typing: "not it", VaultRunner.binary, ["get", "api"], environment: runner.environment)
        #expect(wrong.status == 4 && wrong.stderr.contains("wrong passphrase"), "\(wrong.stderr)")
    }

    @Test("header trust names the SSH keys it recognises among those given to init, and counts the others")
    func headerTrustNamesSSHKeys() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        let alice = try Self.keygen(runner, "alice")
        let intruder = try Self.keygen(runner, "intruder")
        runner.environment["VAULT_IDENTITY_FILE"] = alice.privateKey
        try runner.run(["init", "--recipient", alice.publicLine]).expectSuccess()
        try runner.run(["set", "mine"], stdin: [1]).expectSuccess()
        let planted = try Age.encrypt(
            HeaderTrustTests.document("planted", [7]),
            to: [try Age.parseRecipient(alice.publicLine), try Age.parseRecipient(intruder.publicLine)])
        try Data(planted).write(to: URL(fileURLWithPath: runner.vaultFile))
        #expect(try runner.run(["get", "planted"]).stdout == [7])
        let refused = try runner.run(["set", "new"], stdin: [2])
        refused.expectFailure(6, "now 2 SSH ed25519 keys, you wrote it to 1 SSH ed25519 key, 1 added")
        #expect(refused.stderr.contains("of the keys you gave it names ssh-ed25519 key SHA256:"), "\(refused.stderr)")
        #expect(refused.stderr.contains("(alice@test), and has 1 other stanza(s)"), "\(refused.stderr)")
    }
}
