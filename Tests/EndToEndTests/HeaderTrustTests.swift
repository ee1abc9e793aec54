import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

/// A vault file re-encrypted behind the user's back to its recipients plus an intruder's key:
/// reads go on, writes stop (exit 6) until `vault trust`; the user's own init and rekey, and
/// the first use of a file, are trusted.
@Suite("Header trust, end to end")
struct HeaderTrustTests {
    /// A vault document holding one secret `name` = `value`, as anyone who knows the format can write.
    static func document(_ name: String, _ value: [UInt8]) -> [UInt8] {
        let line =
            "{\"service\":\"vault\",\"account\":\"\(name)\",\"value\":\"\(Data(value).base64EncodedString())\","
            + "\"created\":\"2026-11-21T10:04:48Z\",\"updated\":\"2026-11-21T10:04:48Z\"}\n"
        return Array(("{\"vault\":1}\n" + line).utf8)
    }

    @Test("a file re-encrypted to an added recipient is refused on set, read on get, accepted after vault trust")
    func intruderBuiltWithVaultAge() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        try runner.run(["set", "mine"], stdin: [1]).expectSuccess()
        let intruder = X25519Identity.generate()
        let planted = try Age.encrypt(
            Self.document("planted", [7]), to: [vault.identity.recipient, intruder.recipient])
        try Data(planted).write(to: URL(fileURLWithPath: runner.vaultFile))

        #expect(try runner.run(["get", "planted"]).stdout == [7], "reads must go on")
        try runner.run(["set", "new"], stdin: [2])
            .expectFailure(6, "now 2 age public keys, you wrote it to 1 age public key, 1 added")
        try runner.run(["rm", "planted"]).expectFailure(6, "vault trust")
        #expect(runner.fileBytes() == planted, "a refused write changed the file")

        let trusted = try runner.run(["trust"])
        trusted.expectSuccess()
        #expect(trusted.stderr.contains("2 age public keys"), "\(trusted.stderr)")
        try runner.run(["set", "new"], stdin: [2]).expectSuccess()
        #expect(try Age.decrypt(runner.fileBytes() ?? [], identities: [intruder]).count > 0)
    }

    @Test("a file built with age -r to the user and an intruder is refused on set after vault wrote it")
    func intruderBuiltWithAge() throws {
        try requireComponent(findExecutable("age") == nil ? "age (the age command)" : nil)
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        try runner.run(["init", "--recipient", vault.identity.recipient.encoded]).expectSuccess()
        try runner.run(["set", "mine"], stdin: [1]).expectSuccess()
        let intruder = X25519Identity.generate()
        let plain = runner.path("planted.jsonl")
        try Data(Self.document("planted", [7])).write(to: URL(fileURLWithPath: plain))
        try runTool(
            findExecutable("age")!,
            ["-r", vault.identity.recipient.encoded, "-r", intruder.recipient.encoded, "-o", runner.vaultFile, plain]
        ).expectSuccess()

        #expect(try runner.run(["get", "planted"]).stdout == [7])
        try runner.run(["set", "new"], stdin: [2]).expectFailure(6, "1 added")
        try runner.run(["trust"]).expectSuccess()
        try runner.run(["set", "new"], stdin: [2]).expectSuccess()
    }

    @Test("first use of a file is trusted; the user's rekey is remembered; XDG_STATE_HOME holds the record")
    func ownChangesAreTrusted() throws {
        var vault = try IdentityVault()
        defer { vault.cleanUp() }
        let state = vault.runner.path("state")
        vault.runner.environment["XDG_STATE_HOME"] = state
        let runner = vault.runner
        try Data(try Age.encrypt(Self.document("given", [3]), to: [vault.identity.recipient]))
            .write(to: URL(fileURLWithPath: runner.vaultFile))
        try runner.run(["set", "first"], stdin: [1]).expectSuccess()
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/vault/headers").count == 1)

        let bob = X25519Identity.generate()
        try runner.run(
            ["rekey", "--recipient", vault.identity.recipient.encoded, "--recipient", bob.recipient.encoded]
        ).expectSuccess()
        try runner.run(["set", "after-rekey"], stdin: [2]).expectSuccess()
        // Bob, on his own machine (his own state), trusts the file on first use and writes to it.
        try runner.run(
            ["set", "bob"], stdin: [4], env: ["VAULT_IDENTITY": bob.encoded, "XDG_STATE_HOME": state + "-bob"]
        )
        .expectSuccess()
        try runner.run(["set", "again"], stdin: [5]).expectSuccess()
        #expect(try vault.contents().get().keys.sorted() == ["after-rekey", "again", "bob", "first", "given"])
    }

    @Test("a passphrase file rekeyed by someone who knows the passphrase asks for vault trust too")
    func passphraseFile() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        runner.environment["VAULT_PASSPHRASE"] = "team passphrase"
        try runner.run(["set", "mine"], stdin: [1]).expectSuccess()
        let rekeyed = try Age.encrypt(
            Self.document("other", [9]),
            to: [ScryptRecipient(passphrase: SecureBytes("team passphrase".utf8), workFactor: 10)])
        try Data(rekeyed).write(to: URL(fileURLWithPath: runner.vaultFile))
        #expect(try runner.run(["get", "other"]).stdout == [9])
        try runner.run(["set", "new"], stdin: [2]).expectFailure(6, "a new header, again for a passphrase")
        try runner.run(["trust"]).expectSuccess()
        try runner.run(["set", "new"], stdin: [2]).expectSuccess()
        try runner.run(["trust"], env: ["VAULT_FILE": runner.path("missing.age")]).expectFailure(1, "no vault file")
    }
}
