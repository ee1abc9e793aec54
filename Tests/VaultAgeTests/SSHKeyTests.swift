import Foundation
import Synchronization
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAge

private let sshKeygenPath = "/usr/bin/ssh-keygen"
private let agePath = "/usr/bin/age"

/// Requires ssh-keygen and age: a failure under `make test`, elsewhere a skip.
private func requireSSHTools() throws {
    let available = [sshKeygenPath, agePath].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    try requireComponent(available ? nil : "\(sshKeygenPath) or \(agePath) is not installed (openssh-client, age)")
}

/// Keys made once by ssh-keygen for the whole suite (RSA key generation is slow): ed25519 and
/// RSA, each unencrypted and protected by a passphrase as ssh-keygen does by default.
private final class SSHKeySet: Sendable {
    static let passphrase = "correct horse"
    static let shared = Result { try SSHKeySet() }

    let directory: URL

    init() throws {
        try requireSSHTools()
        directory = try makeTemporaryDirectory(prefix: "vault-ssh")
        for (name, type, passphrase) in [
            ("ed25519", "ed25519", ""), ("ed25519-locked", "ed25519", Self.passphrase), ("rsa", "rsa", ""),
            ("rsa-locked", "rsa", Self.passphrase),
        ] {
            var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "\(name)@test", "-f", path(name)]
            if type == "rsa" { arguments += ["-b", "2048"] }
            let result = try runTool(sshKeygenPath, arguments)
            guard result.status == 0 else { throw SSHKeySetError(message: "ssh-keygen failed: \(result.stderr)") }
        }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func privateKey(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
    func publicKey(_ name: String) throws -> String { try String(contentsOfFile: path(name) + ".pub", encoding: .utf8) }

    static func get() throws -> SSHKeySet { try shared.get() }
}

private struct SSHKeySetError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Answers a passphrase prompt with `answer` and counts the questions.
private final class CountingPrompter: Sendable {
    let asked = Mutex(0)
    let answer: String?

    init(answer: String?) { self.answer = answer }

    var prompter: AgePrompter {
        AgePrompter { (_) throws(AgeError) -> SecureBytes? in
            self.asked.withLock { $0 += 1 }
            return self.answer.map { SecureBytes($0.utf8) }
        }
    }
}

@Suite("SSH keys: ssh-ed25519 and ssh-rsa recipients and identities, interop with age and ssh-keygen")
struct SSHKeyTests {
    @Test("ssh-keygen's keys, plain and passphrase-protected, open files made for their .pub lines")
    func keygenKeysRoundTrip() throws {
        let keys = try SSHKeySet.get()
        for name in ["ed25519", "ed25519-locked", "rsa", "rsa-locked"] {
            let recipient = try Age.parseRecipient(
                try keys.publicKey(name).trimmingCharacters(in: .whitespacesAndNewlines))
            let counter = CountingPrompter(answer: SSHKeySet.passphrase)
            let identities = try Age.parseIdentityFile(try keys.privateKey(name), prompter: counter.prompter)
            try #require(identities.count == 1)
            #expect(identities[0].needsPerson == name.hasSuffix("locked"), "\(name)")
            #expect(identities[0].description.contains("SHA256:"), "\(identities[0].description)")
            #expect(recipient.description.hasSuffix("(\(name)@test)"), "\(recipient.description)")
            let file = try Age.encrypt(Array("for \(name)".utf8), to: [recipient])
            #expect(try Age.decrypt(file, identities: identities) == Array("for \(name)".utf8))
            // The identity's own recipient is the same key: a new file made with it opens too.
            let again = try Age.encrypt([1], to: [try identities[0].matchingRecipient()])
            #expect(try Age.decrypt(again, identities: identities) == [1])
            #expect(counter.asked.withLock { $0 } == (name.hasSuffix("locked") ? 1 : 0), "asked once: \(name)")
        }
    }

    @Test("files vault writes open with age -d -i KEY, and age's files open in vault (ed25519, RSA, protected keys)")
    func interopWithAge() throws {
        let keys = try SSHKeySet.get()
        let workspace = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(workspace) }
        let plaintext = Array("shared through SSH keys\n".utf8)
        let input = workspace.appendingPathComponent("in").path
        try Data(plaintext).write(to: URL(fileURLWithPath: input))
        for name in ["ed25519", "rsa", "ed25519-locked", "rsa-locked"] {
            let locked = name.hasSuffix("locked")
            // vault -> age
            let recipient = try Age.parseRecipient(try keys.publicKey(name))
            let written = workspace.appendingPathComponent("\(name).vault.age").path
            try Data(try Age.encrypt(plaintext, to: [recipient])).write(to: URL(fileURLWithPath: written))
            let output = written + ".out"
            let arguments = ["-d", "-i", keys.path(name), "-o", output, written]
            // age asks for a protected key's passphrase at the terminal: typed through a pseudo-terminal.
            let decrypted =
                locked
                ? try runOnTerminal(typing: SSHKeySet.passphrase, agePath, arguments)
                : try runTool(agePath, arguments)
            #expect(decrypted.status == 0, "age -d -i \(name): \(decrypted.stderr)")
            #expect([UInt8]((try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()) == plaintext, "\(name)")
            // age -> vault
            let made = workspace.appendingPathComponent("\(name).age.age").path
            let encrypted = try runTool(agePath, ["-e", "-R", keys.path(name) + ".pub", "-o", made, input])
            #expect(encrypted.status == 0, "age -R \(name).pub: \(encrypted.stderr)")
            let counter = CountingPrompter(answer: SSHKeySet.passphrase)
            let identities = try Age.parseIdentityFile(try keys.privateKey(name), prompter: counter.prompter)
            let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: made)))
            #expect(try Age.decrypt(file, identities: identities) == plaintext, "\(name)")
            #expect(try Age.stanzaTypes(of: file) == [StanzaType(name.hasPrefix("rsa") ? "ssh-rsa" : "ssh-ed25519")])
        }
    }

    @Test("a protected key asks only for a stanza with its tag, once; no one to ask and a wrong passphrase fail")
    func protectedKeyAsksOnlyWhenAddressed() throws {
        let keys = try SSHKeySet.get()
        let other = X25519Identity.generate()
        let notForIt = try Age.encrypt([1], to: [other.recipient])
        let forIt = try Age.encrypt([2], to: [try Age.parseRecipient(try keys.publicKey("ed25519-locked"))])

        let counter = CountingPrompter(answer: SSHKeySet.passphrase)
        let identities = try Age.parseIdentityFile(try keys.privateKey("ed25519-locked"), prompter: counter.prompter)
        expectAgeError([.noMatch]) { _ = try Age.decrypt(notForIt, identities: identities) }
        #expect(counter.asked.withLock { $0 } == 0, "asked for a file not encrypted to the key")
        #expect(try Age.decrypt(forIt, identities: identities) == [2])
        #expect(try Age.decrypt(forIt, identities: identities) == [2])
        #expect(counter.asked.withLock { $0 } == 1)

        let nobody = try Age.parseIdentityFile(try keys.privateKey("ed25519-locked"))
        do {
            _ = try Age.decrypt(forIt, identities: nobody)
            Issue.record("opened without a passphrase")
        } catch {
            #expect(error.kind == .cannotAsk)
            #expect(error.message.contains("passphrase") && error.message.contains("SHA256:"), "\(error.message)")
        }
        let wrong = try Age.parseIdentityFile(
            try keys.privateKey("rsa-locked"), prompter: CountingPrompter(answer: "not it").prompter)
        let forRSA = try Age.encrypt([3], to: [try Age.parseRecipient(try keys.publicKey("rsa-locked"))])
        do {
            _ = try Age.decrypt(forRSA, identities: wrong)
            Issue.record("opened with a wrong passphrase")
        } catch {
            #expect(error.kind == .invalidKey)
            #expect(error.message.contains("wrong passphrase"), "\(error.message)")
        }
    }

    @Test("a recipients file mixes age1, ssh-ed25519 and ssh-rsa lines; ecdsa and sk lines are skipped by number")
    func recipientsFileWithUnsupportedLines() throws {
        let keys = try SSHKeySet.get()
        let ecdsa = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBFakeFakeFake= ci"
        let sk = "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tFakeFake= yubikey"
        let age = X25519Identity.generate()
        let text = [
            "# team", age.recipient.encoded, "", try keys.publicKey("ed25519").trimmingCharacters(in: .newlines),
            ecdsa, try keys.publicKey("rsa").trimmingCharacters(in: .newlines), sk,
        ].joined(separator: "\n")
        let file = try Age.parseRecipientsFile(text)
        #expect(file.recipients.count == 3)
        #expect(file.skipped.map(\.line) == [5, 7])
        #expect(file.skipped[0].reason.contains("ecdsa-sha2-nistp256"))
        #expect(file.skipped[1].reason.contains("sk-ssh-ed25519@openssh.com"))
        #expect(!file.skipped.contains { $0.reason.contains("AAAA") })

        do {
            _ = try Age.parseRecipientsFile("\(ecdsa)\n\(sk)\n")
            Issue.record("a file of unsupported keys parsed")
        } catch {
            #expect(error.kind == .invalidKey)
            #expect(error.message.contains("no usable recipients"), "\(error.message)")
        }
        #expect(
            throws: AgeError(
                kind: .unsupportedKey,
                message: "ecdsa-sha2-nistp256 keys are not supported (age encrypts to ssh-ed25519 and ssh-rsa keys)")
        ) {
            try Age.parseRecipient(ecdsa)
        }
    }

    @Test("an SSH recipient recognises its own stanzas by their tag, and only those")
    func recipientsRecogniseTheirStanzas() throws {
        let keys = try SSHKeySet.get()
        let ed25519 = try Age.parseRecipient(try keys.publicKey("ed25519"))
        let rsa = try Age.parseRecipient(try keys.publicKey("rsa"))
        let x25519 = X25519Identity.generate().recipient
        let file = try Age.encrypt([1], to: [ed25519, rsa, x25519])
        let stanzas = try Age.stanzas(of: file)
        #expect(stanzas.map { ed25519.recognizes($0) } == [true, false, false])
        #expect(stanzas.map { rsa.recognizes($0) } == [false, true, false])
        #expect(stanzas.map { x25519.recognizes($0) } == [false, false, false])
        #expect(StanzaType.describe(stanzas.map(\.kind)) == "1 SSH ed25519 key and 1 SSH RSA key and 1 age public key")
    }

    @Test("malformed SSH keys and key files are errors that never quote the key")
    func malformedKeys() throws {
        let keys = try SSHKeySet.get()
        let line = try keys.publicKey("ed25519")
        let fields = line.split(separator: " ")
        for bad in [
            "ssh-ed25519", "ssh-ed25519 !!!!", "ssh-rsa \(fields[1])", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==",
        ] {
            expectAgeError([.invalidKey], "\(bad)") { _ = try Age.parseRecipient(bad) }
        }
        let privateKey = try keys.privateKey("ed25519")
        var lines = privateKey.split(separator: "\n").map(String.init)
        lines[2] = String(lines[2].reversed())
        do {
            _ = try Age.parseIdentityFile(lines.joined(separator: "\n"))
            Issue.record("a damaged key parsed")
        } catch {
            #expect(!error.message.contains(lines[2].prefix(20)))
        }
        let pem = expectAgeError([.unsupportedKey]) {
            _ = try Age.parseIdentityFile("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n")
        }
        #expect(pem?.remedy == .convertSSHKeyToOpenSSHFormat)
    }

    /// An `ssh-rsa` public key line with public exponent `exponent` and an odd modulus of `bits`
    /// bits (not a product of primes: parsing a public key never factors it).
    static func rsaLine(exponent: [UInt8], bits: Int) -> String {
        var modulus = patternBytes(count: (bits + 7) / 8)
        modulus[0] = modulus[0] & UInt8(0xFF >> ((8 - bits % 8) % 8)) | UInt8(1 << ((bits - 1) % 8))
        modulus[modulus.count - 1] |= 1
        var writer = SSHWriter()
        writer.string(Array("ssh-rsa".utf8))
        writer.positiveInteger(exponent)
        writer.positiveInteger(modulus)
        return "ssh-rsa \(String(decoding: Base64.encodePadded(writer.bytes), as: UTF8.self)) test"
    }

    @Test("an ssh-rsa recipient needs an odd exponent from 3 to 2^24 - 1 and at most 16,384 bits, refused when parsed")
    func rsaRecipientLimits() throws {
        for exponent: [UInt8] in [[3], [0x01, 0x00, 0x01], [0xFF, 0xFF, 0xFF]] {
            #expect(throws: Never.self, "\(exponent)") {
                try Age.parseRecipient(Self.rsaLine(exponent: exponent, bits: 2048))
            }
        }
        #expect(throws: Never.self) { try Age.parseRecipient(Self.rsaLine(exponent: [3], bits: 16_384)) }
        // e = 1 would leave the padded file key readable in the stanza; even exponents and
        // exponents above 24 bits are no RSA keys age accepts.
        for exponent: [UInt8] in [
            [], [1], [2], [0x01, 0x00, 0x00], [0x01, 0x00, 0x00, 0x01], [0xFF, 0xFF, 0xFF, 0xFF],
        ] {
            do {
                _ = try Age.parseRecipient(Self.rsaLine(exponent: exponent, bits: 2048))
                Issue.record("an ssh-rsa key with exponent \(exponent) was accepted")
            } catch {
                #expect(error.kind == .invalidKey, "\(exponent): \(error)")
                #expect(error.message.contains("exponent"), "\(exponent): \(error)")
            }
        }
        do {
            _ = try Age.parseRecipient(Self.rsaLine(exponent: [1, 0, 1], bits: 16_385))
            Issue.record("a 16,385-bit ssh-rsa key was accepted")
        } catch {
            #expect(error.kind == .invalidKey)
            #expect(error.message.contains("16385 bits is too large"), "\(error)")
        }
    }

    @Test("Blowfish: the tables are pi's digits as the generator makes them, and a known answer")
    func blowfish() throws {
        let root = try #require(packageRoot())
        let generated = try runTool(
            "/usr/bin/python3", [root.appendingPathComponent("Tests/generate-blowfish-tables.py").path])
        #expect(generated.status == 0, "\(generated.stderr)")
        let committed = try String(
            contentsOf: root.appendingPathComponent("Sources/VaultAge/SSH/BlowfishTables.swift"), encoding: .utf8)
        #expect(String(decoding: generated.stdout, as: UTF8.self) == committed)
        // Eric Young's test vectors: the standard key schedule is bcrypt's expand without salt.
        for (key, plain, expected): ([UInt8], (UInt32, UInt32), (UInt32, UInt32)) in [
            ([UInt8](repeating: 0, count: 8), (0, 0), (0x4EF9_9745, 0x6198_DD78)),
            ([UInt8](repeating: 0xFF, count: 8), (0xFFFF_FFFF, 0xFFFF_FFFF), (0x5186_6FD5, 0xB85E_CB8A)),
        ] {
            let cipher = Blowfish()
            key.withUnsafeBytes { cipher.expand(key: $0, salt: nil) }
            var (left, right) = plain
            cipher.encrypt(&left, &right)
            #expect(left == expected.0 && right == expected.1)
        }
    }
}
