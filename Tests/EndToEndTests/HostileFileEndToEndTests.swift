import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

/// Damaged and hostile vault files through the built binary: `get`, `ls`, `set` and `rm` each exit
/// 6 with one line on stderr, print nothing on stdout, and leave the file byte for byte as it was.
/// (`HostileFileTests` in VaultCoreTests runs thousands more mutations in process.)
@Suite("Hostile and damaged files, end to end")
struct HostileFileEndToEndTests {
    /// Runs every command on `bytes` as the vault file; returns how many commands ran.
    @discardableResult
    static func attack(_ vault: IdentityVault, _ bytes: [UInt8], _ label: String, limitMemory: Bool = false) throws
        -> Int
    {
        try Data(bytes).write(to: URL(fileURLWithPath: vault.runner.vaultFile))
        let commands: [([String], [UInt8])] = [
            (["get", "token"], []), (["ls"], []), (["set", "token"], [7]), (["rm", "token"], []),
        ]
        for (arguments, stdin) in commands {
            let result: ToolResult
            if limitMemory {
                // 400 MB of address space: enough for vault to read a 100 MB file, not to blow it up.
                let script = "ulimit -v 400000; exec \"$0\" \"$@\""
                result = try runTool(
                    "/bin/sh", ["-c", script, VaultRunner.binary] + arguments, input: stdin,
                    environment: vault.runner.environment, timeout: 60)
            } else {
                result = try vault.runner.run(arguments, stdin: stdin, timeout: 60)
            }
            result.expectFailure(6)
            #expect(!result.stderr.contains("secret value"), "\(label): \(arguments) leaked plaintext")
            #expect(vault.runner.fileBytes() == bytes, "\(label): \(arguments) changed the file")
        }
        return commands.count
    }

    /// A vault holding `token`, and its file.
    static func sample() throws -> (IdentityVault, [UInt8]) {
        let vault = try IdentityVault()
        try vault.runner.run(["set", "token"], stdin: Array("the secret value".utf8)).expectSuccess()
        try vault.runner.run(["set", "other"], stdin: [1, 2, 3]).expectSuccess()
        return (vault, try #require(vault.runner.fileBytes()))
    }

    @Test("truncations and flipped bits across the file")
    func truncationsAndFlips() throws {
        let (vault, file) = try Self.sample()
        defer { vault.cleanUp() }
        var files = 0
        for offset in stride(from: 0, to: file.count, by: max(1, file.count / 24)) {
            try Self.attack(vault, Array(file.prefix(offset)), "truncated to \(offset)")
            var flipped = file
            flipped[offset] ^= 1 << (offset % 8)
            try Self.attack(vault, flipped, "byte \(offset) flipped")
            files += 2
        }
        print("hostile files, end to end: \(files) truncated or flipped files, 4 commands each")
    }

    /// Each command has a time-out (`attack`); how fast is for make bench.
    @Test("oversized headers exit 6 within 400 MB of address space")
    func oversized() throws {
        let (vault, _) = try Self.sample()
        defer { vault.cleanUp() }
        let version = Array("age-encryption.org/v1\n".utf8)
        let mac = Array("--- \(String(repeating: "A", count: 43))\n".utf8)
        let cases: [(String, [UInt8])] = [
            (
                "a 100 MB header line",
                version + Array("-> X25519 ".utf8) + [UInt8](repeating: 0x41, count: 100_000_000) + [0x0A]
            ),
            (
                "two million stanzas",
                version + Array(repeating: Array("-> a\n\n".utf8), count: 2_000_000).flatMap { $0 } + mac
            ),
        ]
        for (label, bytes) in cases {
            try Self.attack(vault, bytes, label, limitMemory: true)
        }
    }

    @Test("work factors, recipient types, trailing garbage, and age files that hold no vault document")
    func notVaultFiles() throws {
        let (vault, file) = try Self.sample()
        defer { vault.cleanUp() }
        let recipient = vault.identity.recipient
        let scrypt = String(
            decoding: try Age.encrypt([1], to: [ScryptRecipient(passphrase: SecureBytes([1]), workFactor: 10)]),
            as: UTF8.self)
        let cases: [(String, [UInt8])] = [
            ("trailing garbage", file + Array("garbage".utf8)),
            ("scrypt work factor 0", Array(scrypt.replacingOccurrences(of: " 10\n", with: " 0\n").utf8)),
            ("scrypt work factor 40", Array(scrypt.replacingOccurrences(of: " 10\n", with: " 40\n").utf8)),
            (
                "only an unknown recipient type",
                Array("age-encryption.org/v1\n-> piv-p256 abc\nAAAA\n--- \(String(repeating: "A", count: 43))\n".utf8)
            ),
            ("an age file of plain text", try Age.encrypt(Array("hello\n".utf8), to: [recipient])),
            ("an age file of a newer document", try Age.encrypt(Array("{\"vault\":2}\n".utf8), to: [recipient])),
            ("an empty file", []),
        ]
        for (label, bytes) in cases { try Self.attack(vault, bytes, label) }
    }

    @Test("a genuinely wrong key is exit 4, and a passphrase given for a key-encrypted file says so")
    func wrongKey() throws {
        let (vault, file) = try Self.sample()
        defer { vault.cleanUp() }
        let other = X25519Identity.generate().encoded
        try vault.runner.run(["get", "token"], env: ["VAULT_IDENTITY": other]).expectFailure(4, "does not unlock")
        try vault.runner.run(["set", "token"], stdin: [1], env: ["VAULT_IDENTITY": other]).expectFailure(4)
        var runner = vault.runner
        runner.environment["VAULT_IDENTITY"] = nil
        try runner.run(["get", "token"], env: ["VAULT_PASSPHRASE": "pw"]).expectFailure(
            4, "encrypted to 1 age public key")
        #expect(vault.runner.fileBytes() == file)
    }
}
