import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// `vault migrate` between vault files, through the built binary.
@Suite("Migrate command, file to file")
struct MigrateCommandTests {
    /// A runner whose VAULT_FILE (the source) and `b.age` (the destination) share one identity.
    struct Files {
        var vault: VaultRunner
        let identity = X25519Identity.generate()
        var source: String { vault.vaultFile }
        var destination: String { vault.path("b.age") }

        init() throws {
            vault = try VaultRunner()
            vault.environment["VAULT_IDENTITY"] = identity.encoded
        }

        func read(_ path: String) throws -> [String: StoredSecret] { try VaultFile.read(path, identity: identity) }
        func write(_ secrets: [String: StoredSecret], _ path: String) throws {
            try VaultFile.write(secrets, to: path, identity: identity)
        }
        func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
        func migrate(_ extra: [String] = [], env: [String: String] = [:]) throws -> ToolResult {
            try vault.run(["migrate", "--from", "file", "--to", "file:\(destination)"] + extra, env: env)
        }
    }

    @Test("every secret arrives byte for byte with its metadata, 1 MiB and binary included, both ways")
    func byteExact() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        let secrets = VaultFile.samples(count: 40, large: true)
        try files.write(secrets, files.source)
        try files.vault.run(["set", "set-by-vault", "--expires-in", "30d"], stdin: [0, 1, 2]).expectSuccess()
        let before = try files.read(files.source)
        #expect(before.count == 41)

        let result = try files.migrate()
        result.expectSuccess()
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.contains("migrated 41, skipped 0, conflicts 0; removed 41 from the source"),
            "\(result.stderr)")
        #expect(try files.read(files.destination) == before)
        #expect(try files.read(files.source).isEmpty)
        let large = try files.vault.run(["get", "name-003"], env: ["VAULT_FILE": files.destination])
        #expect(large.stdout == secrets[VaultFile.key("vault", "name-003")]?.value)

        try files.vault.run(["migrate", "--from", "file:\(files.destination)", "--to", "file"]).expectSuccess()
        #expect(try files.read(files.source) == before)
        #expect(try files.read(files.destination).isEmpty)
    }

    @Test("a conflict exits 7, lists the names and changes nothing; --overwrite replaces them")
    func conflicts() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        var secrets = VaultFile.samples(count: 6)
        try files.write(secrets, files.source)
        let same = VaultFile.key("vault", "name-000")
        let different = VaultFile.key("vault", "name-004")
        let otherExpiry = VaultFile.key("vault", "name-005")
        var there = [same: secrets[same]!, different: secrets[different]!, otherExpiry: secrets[otherExpiry]!]
        there[same]!.created = "2020-01-01T00:00:00Z"
        there[different]!.value = Array("changed elsewhere".utf8)
        there[otherExpiry]!.expires = "2031-01-01T00:00:00Z"
        try files.write(there, files.destination)
        let (sourceBytes, destinationBytes) = (files.bytes(files.source), files.bytes(files.destination))

        let refused = try files.migrate()
        #expect(refused.status == 7)
        #expect(refused.stdout.isEmpty)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 3, "\(refused.stderr)")
        #expect(lines[0].hasPrefix("vault: conflict: 'name-004' in service 'vault'"))
        #expect(lines[1].hasPrefix("vault: conflict: 'name-005' in service 'vault'"))
        #expect(lines[2].contains("nothing was changed") && lines[2].contains("2 of 6 secrets conflict"))
        #expect(files.bytes(files.source) == sourceBytes)
        #expect(files.bytes(files.destination) == destinationBytes)

        let replaced = try files.migrate(["--overwrite"])
        replaced.expectSuccess()
        #expect(
            replaced.stderr.contains("migrated 5, skipped 1, conflicts 2 (2 overwritten); removed 6"),
            "\(replaced.stderr)")
        secrets[same] = there[same]
        #expect(try files.read(files.destination) == secrets)
        #expect(try files.read(files.source).isEmpty)
    }

    @Test("--dry-run prints the plan and changes nothing")
    func dryRun() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        let secrets = VaultFile.samples(count: 3)
        try files.write(secrets, files.source)
        var there = [VaultFile.key("vault", "name-001"): secrets[VaultFile.key("vault", "name-001")]!]
        there[VaultFile.key("vault", "name-002")] = StoredSecret(
            value: [9], created: "2020-01-01T00:00:00Z", updated: "2020-01-01T00:00:00Z")
        try files.write(there, files.destination)
        let (sourceBytes, destinationBytes) = (files.bytes(files.source), files.bytes(files.destination))

        let plan = try files.migrate(["--dry-run"])
        #expect(plan.status == 7)
        #expect(plan.stdoutText == "copy\tvault\tname-000\nskip\tvault\tname-001\nconflict\tvault\tname-002\n")
        #expect(plan.stderr.hasPrefix("vault: dry run, nothing changed: "))
        #expect(plan.stderr.contains("1 to copy, 1 to skip, 1 conflicts"))
        let overwriting = try files.migrate(["--dry-run", "--overwrite", "--keep-source"])
        overwriting.expectSuccess()
        #expect(overwriting.stdoutText == "copy\tvault\tname-000\nskip\tvault\tname-001\noverwrite\tvault\tname-002\n")
        #expect(overwriting.stderr.contains("1 conflicts to overwrite; the source would be kept"))
        #expect(files.bytes(files.source) == sourceBytes)
        #expect(files.bytes(files.destination) == destinationBytes)
        #expect(try files.migrate(["--dry-run"], env: ["VAULT_FILE": files.vault.path("none.age")]).stdout.isEmpty)
    }

    @Test("--keep-source copies and leaves the source as it was; a rerun skips everything")
    func keepSource() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        let secrets = VaultFile.samples(count: 10)
        try files.write(secrets, files.source)
        let sourceBytes = files.bytes(files.source)
        let copied = try files.migrate(["--keep-source"])
        copied.expectSuccess()
        #expect(copied.stderr.contains("migrated 10, skipped 0, conflicts 0; the source was kept"))
        #expect(files.bytes(files.source) == sourceBytes)
        #expect(try files.read(files.destination) == secrets)
        let again = try files.migrate(["--keep-source"])
        #expect(again.stderr.contains("migrated 0, skipped 10, conflicts 0; the source was kept"))
        let moved = try files.migrate()
        #expect(moved.stderr.contains("migrated 0, skipped 10, conflicts 0; removed 10 from the source"))
        #expect(try files.read(files.source).isEmpty)
    }

    @Test("the scope is the current service (--service, VAULT_SERVICE, vault) or --all")
    func scope() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        var secrets = VaultFile.samples(count: 2)
        secrets.merge(VaultFile.samples(service: "github.com", count: 2)) { $1 }
        secrets.merge(VaultFile.samples(service: "gitlab.com", count: 2)) { $1 }
        try files.write(secrets, files.source)
        let only = { (service: String) in secrets.filter { $0.key.hasPrefix(service + "\t") } }

        try files.migrate().expectSuccess()
        #expect(try files.read(files.destination) == only("vault"))
        try files.migrate(["--service", "github.com"]).expectSuccess()
        try files.migrate(env: ["VAULT_SERVICE": "gitlab.com"]).expectSuccess()
        #expect(try files.read(files.destination) == secrets)
        #expect(try files.read(files.source).isEmpty)

        try files.vault.run(["migrate", "--all", "--from", "file:\(files.destination)", "--to", "file"]).expectSuccess()
        #expect(try files.read(files.source) == secrets)
        let nothing = try files.migrate(["--service", "none"])
        nothing.expectSuccess()
        #expect(nothing.stderr.contains("nothing to migrate"))
        try files.migrate(["--all", "--service", "vault"]).expectFailure(2, "not both")
    }

    @Test("a destination file with other keys is opened with VAULT_TO_*; without them, the source's keys")
    func destinationKeys() throws {
        var files = try Files()
        defer { files.vault.cleanUp() }
        files.vault.environment["VAULT_PASSPHRASE"] = "source pass"
        files.vault.environment.removeValue(forKey: "VAULT_IDENTITY")
        try files.vault.run(["set", "token"], stdin: [1, 2, 3]).expectSuccess()
        let target = X25519Identity.generate()

        try files.migrate(env: ["VAULT_TO_IDENTITY": target.encoded]).expectSuccess()
        let opened = try files.vault.run(
            ["get", "token"], env: ["VAULT_FILE": files.destination, "VAULT_IDENTITY": target.encoded])
        #expect(opened.stdout == [1, 2, 3])
        try files.vault.run(["get", "token"], env: ["VAULT_FILE": files.destination]).expectFailure(4)

        let third = files.vault.path("c.age")
        try files.vault.run(
            ["migrate", "--from", "file:\(files.destination)", "--to", "file:\(third)"],
            env: ["VAULT_IDENTITY": target.encoded]
        )
        .expectSuccess()
        #expect(
            try files.vault.run(["get", "token"], env: ["VAULT_FILE": third, "VAULT_IDENTITY": target.encoded]).stdout
                == [1, 2, 3])
    }

    @Test("usage errors exit 2, a wrong source key exits 4, and nothing changes")
    func errors() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        try files.write(VaultFile.samples(count: 2), files.source)
        let sourceBytes = files.bytes(files.source)
        let cases: [([String], String)] = [
            (["migrate", "--to", "file:x"], "needs --from BACKEND and --to BACKEND"),
            (["migrate", "--from", "file"], "needs --from BACKEND and --to BACKEND"),
            (
                ["migrate", "--from", "file", "--to", "cloud"],
                "--to is 'cloud'; use file, file:PATH, secret-service or openbao"
            ),
            (["migrate", "--from", "file:", "--to", "file:x"], "needs a path"),
            (["migrate", "--from", "secret-service:x", "--to", "file"], "takes no ':' argument"),
            (["migrate", "--from", "file", "--to", "file:\(files.source)"], "the same store"),
            (["migrate", "--from", "file", "--to", "file:x", "extra"], "takes 0 operand"),
            (["--backend", "file", "migrate", "--from", "file", "--to", "file:x"], "--backend does not apply"),
        ]
        for (arguments, fragment) in cases {
            try files.vault.run(arguments).expectFailure(2, fragment)
        }
        try files.migrate(env: ["VAULT_IDENTITY": X25519Identity.generate().encoded]).expectFailure(
            4, "does not unlock")
        #expect(files.bytes(files.source) == sourceBytes)
        #expect(files.bytes(files.destination) == nil)
    }

    @Test("help: vault help migrate and vault help rekey come from the command table")
    func help() throws {
        let files = try Files()
        defer { files.vault.cleanUp() }
        let overview = try files.vault.run(["help"]).stdoutText
        for command in ["migrate", "rekey"] {
            #expect(overview.contains("\n  \(command) "), "help lists \(command)")
            let help = try files.vault.run([command, "--help"])
            help.expectSuccess()
            #expect(help.stdoutText.hasPrefix("usage: vault \(command)"))
            #expect(try files.vault.run(["help", command]).stdout == help.stdout)
        }
        let migrate = try files.vault.run(["help", "migrate"]).stdoutText
        for text in [
            "--from BACKEND", "--to BACKEND", "--dry-run", "--keep-source", "--overwrite", "--all", "VAULT_TO_",
        ] {
            #expect(migrate.contains(text), "help migrate mentions \(text)")
        }
    }
}
