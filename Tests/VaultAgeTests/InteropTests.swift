import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

private let agePath = "/usr/bin/age"
private let ageKeygenPath = "/usr/bin/age-keygen"

/// Requires age and age-keygen: a failure under `make test`, elsewhere a skip.
private func requireAgeTools() throws {
    let available = [agePath, ageKeygenPath].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    try requireComponent(available ? nil : "\(agePath) or \(ageKeygenPath) is not installed (Debian package age)")
}

/// A scratch folder with an X25519 identity file in it.
private struct Workspace {
    let directory: URL
    let identity = X25519Identity.generate()

    init() throws {
        directory = try makeTemporaryDirectory()
        try Data((identity.encoded + "\n").utf8).write(to: keyFile)
    }

    var keyFile: URL { directory.appendingPathComponent("key.txt") }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Runs age, expecting success, and returns what it wrote to stdout.
    @discardableResult
    func age(_ arguments: [String]) throws -> [UInt8] {
        let result = try runTool(agePath, arguments)
        #expect(result.status == 0, "age \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        return result.stdout
    }

    /// Runs age on a pseudo-terminal, typing the passphrase at each prompt.
    func ageWithPassphrase(_ passphrase: String, _ arguments: [String]) throws {
        let result = try runOnTerminal(typing: passphrase, agePath, arguments)
        #expect(result.status == 0, "age \(arguments.joined(separator: " ")) failed: \(result.stderr)")
    }
}

/// Plaintexts that cross the 64 KiB chunk boundaries, plus binary and empty ones.
private let interopPlaintexts: [(name: String, bytes: [UInt8])] = [
    ("binary with NUL", [0, 1, 2, 0, 255, 0, 10, 13, 0]),
    ("empty", []),
    ("one byte", [0x42]),
    ("64 KiB", patternBytes(count: 64 * 1024)),
    ("64 KiB + 1", patternBytes(count: 64 * 1024 + 1)),
    ("128 KiB", patternBytes(count: 128 * 1024)),
    ("1 MiB + 1", patternBytes(count: 1024 * 1024 + 1)),
]

@Suite struct InteropTests {
    @Test(arguments: interopPlaintexts.indices)
    func ageDecryptsOurFiles(index: Int) throws {
        try requireAgeTools()
        let plaintext = interopPlaintexts[index].bytes
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        try workspace.write("in.age", try Age.encrypt(plaintext, to: [workspace.identity.recipient]))
        // Read stdout: with -o, age creates no file at all for an empty plaintext.
        let decrypted = try workspace.age(["-d", "-i", workspace.keyFile.path, workspace.path("in.age")])
        #expect(decrypted == plaintext, "\(interopPlaintexts[index].name)")
    }

    @Test(arguments: interopPlaintexts.indices)
    func weDecryptAgeFiles(index: Int) throws {
        try requireAgeTools()
        let plaintext = interopPlaintexts[index].bytes
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        try workspace.write("in", plaintext)
        try workspace.age([
            "-r", workspace.identity.recipient.encoded, "-o", workspace.path("out.age"), workspace.path("in"),
        ])
        let decrypted = try Age.decrypt(try workspace.read("out.age"), identities: [workspace.identity])
        #expect(decrypted == plaintext, "\(interopPlaintexts[index].name)")
    }

    @Test func ageKeygenKeyFileDecrypts() throws {
        try requireAgeTools()
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        let keygen = try runTool(ageKeygenPath, ["-o", workspace.path("generated.txt")])
        #expect(keygen.status == 0, "age-keygen failed: \(keygen.stderr)")
        let keyFile = String(decoding: try workspace.read("generated.txt"), as: UTF8.self)
        let identities = try Age.parseIdentityFile(keyFile)
        try #require(identities.count == 1)
        // age-keygen writes "# public key: age1..."; our derivation must agree with it.
        let recipient = try #require(identities[0].matchingRecipient() as? X25519Recipient)
        #expect(keyFile.contains("# public key: \(recipient.encoded)\n"))

        let plaintext = Array("secret from age-keygen\n".utf8)
        try workspace.write("in", plaintext)
        try workspace.age([
            "-e", "-i", workspace.path("generated.txt"), "-o", workspace.path("in.age"), workspace.path("in"),
        ])
        let decrypted = try Age.decrypt(try workspace.read("in.age"), identities: identities.map { $0 })
        #expect(decrypted == plaintext)
    }

    @Test func ageDecryptsOurPassphraseFile() throws {
        try requireAgeTools()
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        let plaintext = patternBytes(count: 70_000)
        let passphrase = "correct horse battery staple"
        try workspace.write(
            "in.age",
            try Age.encrypt(plaintext, to: [ScryptRecipient(passphrase: SecureBytes(passphrase.utf8), workFactor: 10)]))
        try workspace.ageWithPassphrase(passphrase, ["-d", "-o", workspace.path("out"), workspace.path("in.age")])
        #expect(try workspace.read("out") == plaintext)
    }

    @Test func weDecryptAgePassphraseFile() throws {
        try requireAgeTools()
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        let plaintext = Array("passphrase-protected by age -p\n".utf8)
        let passphrase = "another passphrase, typed twice"
        try workspace.write("in", plaintext)
        try workspace.ageWithPassphrase(passphrase, ["-p", "-o", workspace.path("out.age"), workspace.path("in")])
        let file = try workspace.read("out.age")
        #expect(try Age.stanzaTypes(of: file) == [.scrypt])
        let decrypted = try Age.decrypt(file, identities: [ScryptIdentity(passphrase: SecureBytes(passphrase.utf8))])
        #expect(decrypted == plaintext)
    }

    @Test func weDecryptArmoredAgeFile() throws {
        try requireAgeTools()
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        let plaintext = patternBytes(count: 100_000)
        try workspace.write("in", plaintext)
        try workspace.age([
            "-a", "-r", workspace.identity.recipient.encoded, "-o", workspace.path("out.age"), workspace.path("in"),
        ])
        let armored = try workspace.read("out.age")
        #expect(armored.starts(with: Array("-----BEGIN AGE ENCRYPTED FILE-----\n".utf8)))
        #expect(try Age.decrypt(armored, identities: [workspace.identity]) == plaintext)
    }

    @Test func ageDecryptsOurMultiRecipientFile() throws {
        try requireAgeTools()
        let workspace = try Workspace()
        defer { removeTemporaryDirectory(workspace.directory) }
        let other = X25519Identity.generate()
        let plaintext = Array("for two recipients".utf8)
        let file = try Age.encrypt(plaintext, to: [other.recipient, workspace.identity.recipient])
        #expect(try Age.stanzaTypes(of: file) == [.x25519, .x25519])
        try workspace.write("in.age", file)
        try workspace.age(["-d", "-i", workspace.keyFile.path, "-o", workspace.path("out"), workspace.path("in.age")])
        #expect(try workspace.read("out") == plaintext)
    }
}
