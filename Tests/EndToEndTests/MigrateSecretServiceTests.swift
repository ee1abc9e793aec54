import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// `vault migrate` between a vault file and the session's Secret Service (run the tests under
/// Tests/with-keyring.sh for a private gnome-keyring), through the built binary.
@Suite("Migrate command, file and secret-service", .kwalletSessionFlakes)
struct MigrateSecretServiceTests {
    /// A runner with the keyring, a unique service, and a vault file for that service.
    struct Keyring {
        var vault: VaultRunner
        let identity = X25519Identity.generate()
        let service = uniqueKeyringService("migrate")

        init() throws {
            vault = try VaultRunner()
            vault.environment["VAULT_IDENTITY"] = identity.encoded
            vault.environment["VAULT_SERVICE"] = service
            try SessionKeyring.require(&vault)
        }

        func samples(_ count: Int, large: Bool = false) -> [String: StoredSecret] {
            VaultFile.samples(service: service, count: count, large: large)
        }

        func writeFile(_ secrets: [String: StoredSecret]) throws {
            try VaultFile.write(secrets, to: vault.vaultFile, identity: identity)
        }

        func file() throws -> [String: StoredSecret] { try VaultFile.read(vault.vaultFile, identity: identity) }

        /// The service's secrets in the keyring, copied (not moved) into a fresh file to read them.
        func keyring() throws -> [String: StoredSecret] {
            let snapshot = vault.path("snapshot-\(UUID().uuidString).age")
            defer { try? FileManager.default.removeItem(atPath: snapshot) }
            try vault.run(["migrate", "--keep-source", "--from", "secret-service", "--to", "file:\(snapshot)"])
                .expectSuccess()
            return try VaultFile.read(snapshot, identity: identity)
        }

        /// How many keyring items the service has (duplicates included).
        func itemCount() throws -> Int {
            let found = try runTool(
                "/usr/bin/secret-tool", ["search", "--all", "service", service], environment: vault.environment)
            return found.stdoutText.split(separator: "\n").filter { $0.hasPrefix("[/") }.count
        }

        func cleanUp() {
            SessionKeyring.clear(service, vault)
            vault.cleanUp()
        }
    }

    @Test("file to secret-service and back: byte for byte with metadata, 1 MiB and binary included")
    func roundTrip() throws {
        let keyring = try Keyring()
        defer { keyring.cleanUp() }
        let secrets = keyring.samples(12, large: true)
        try keyring.writeFile(secrets)

        let there = try keyring.vault.run(["migrate", "--from", "file", "--to", "secret-service"])
        there.expectSuccess()
        #expect(
            there.stderr.contains("migrated 12, skipped 0, conflicts 0; removed 12 from the source"), "\(there.stderr)")
        #expect(try keyring.file().isEmpty)
        #expect(try keyring.itemCount() == 12)
        for (key, secret) in secrets {
            let account = String(key.split(separator: "\t")[1])
            let got = try keyring.vault.run(["--backend", "secret-service", "get", "--allow-expired", account])
            #expect(got.stdout == secret.value, "\(account) through the keyring")
        }

        let back = try keyring.vault.run(["migrate", "--from", "secret-service", "--to", "file"])
        back.expectSuccess()
        #expect(try keyring.file() == secrets)
        #expect(try keyring.itemCount() == 0)
    }

    @Test("against the keyring: conflicts change nothing, --dry-run, --overwrite and --keep-source")
    func conflictsAndOptions() throws {
        let keyring = try Keyring()
        defer { keyring.cleanUp() }
        var secrets = keyring.samples(4)
        try keyring.writeFile(secrets)
        let changed = VaultFile.key(keyring.service, "name-002")
        try keyring.vault.run(["--backend", "secret-service", "set", "name-002"], stdin: Array("in the keyring".utf8))
            .expectSuccess()
        let fileBytes = FileManager.default.contents(atPath: keyring.vault.vaultFile)
        let migrate = ["migrate", "--from", "file", "--to", "secret-service"]

        let plan = try keyring.vault.run(migrate + ["--dry-run"])
        #expect(plan.status == 7)
        #expect(
            plan.stdoutText.split(separator: "\n").map { $0.split(separator: "\t")[0] } == [
                "copy", "copy", "conflict", "copy",
            ])
        let refused = try keyring.vault.run(migrate)
        #expect(refused.status == 7)
        #expect(refused.stderr.contains("conflict: 'name-002' in service '\(keyring.service)'"))
        #expect(FileManager.default.contents(atPath: keyring.vault.vaultFile) == fileBytes)
        #expect(try keyring.itemCount() == 1)

        try keyring.vault.run(migrate + ["--overwrite", "--keep-source"]).expectSuccess()
        #expect(FileManager.default.contents(atPath: keyring.vault.vaultFile) == fileBytes)
        #expect(try keyring.keyring() == secrets)
        #expect(try keyring.itemCount() == 4)

        // Back to a file that has a different value: refused, then replaced.
        let inKeyring = secrets
        secrets[changed]?.value = Array("newer in the file".utf8)
        try keyring.writeFile(secrets)
        #expect(try keyring.vault.run(["migrate", "--from", "secret-service", "--to", "file"]).status == 7)
        #expect(try keyring.itemCount() == 4)
        try keyring.vault.run(["migrate", "--overwrite", "--from", "secret-service", "--to", "file"])
            .expectSuccess()
        #expect(try keyring.itemCount() == 0)
        #expect(try keyring.file() == inKeyring)
    }

    @Test("file to secret-service killed with SIGKILL at points spread over its run, then run again")
    func killed() throws {
        let keyring = try Keyring()
        defer { keyring.cleanUp() }
        let secrets = keyring.samples(20)
        let original = try { () throws -> Data in
            try keyring.writeFile(secrets)
            return try #require(FileManager.default.contents(atPath: keyring.vault.vaultFile))
        }()
        let migrate = ["migrate", "--from", "file", "--to", "secret-service"]
        let started = Date()
        #expect(try MigrateKillTests.runAndKill(keyring.vault, migrate, after: nil))
        let runTime = Date().timeIntervalSince(started)

        let landed = try MigrateKillTests.killSpread(over: runTime, points: 10) { delay in
            SessionKeyring.clear(keyring.service, keyring.vault)
            try original.write(to: URL(fileURLWithPath: keyring.vault.vaultFile))
            let finished = try MigrateKillTests.runAndKill(keyring.vault, migrate, after: delay)
            let left = try keyring.file()
            let arrived = try keyring.keyring()
            for (key, secret) in secrets {
                #expect(left[key] == secret || arrived[key]?.value == secret.value, "kill at \(delay) s lost \(key)")
            }
            // KWallet creates an item and sets its secret in two steps: a kill between them can
            // leave an item whose value differs, which the rerun then reports as a conflict
            // (exit 7). Open in issue 12; shown as a known issue on KWallet, never hidden.
            try withKnownIssue(
                "KWallet: a kill between creating an item and setting its secret leaves a conflict",
                isIntermittent: true
            ) {
                try keyring.vault.run(migrate).expectSuccess()
                #expect(try keyring.keyring() == secrets, "after a kill at \(delay) s")
                #expect(try keyring.itemCount() == secrets.count, "each secret once, after a kill at \(delay) s")
                #expect(try keyring.file().isEmpty)
            } when: {
                SecretServiceProvider.current == .kwallet
            }
            return MigrateKillTests.Landing(finished: finished, left: left.count, arrived: arrived.count)
        }
        let tally = MigrateKillTests.Landing.describe(landed)
        print("migrate to the keyring took \(runTime) s; the kills landed: \(tally)")
        #expect(landed[.midway, default: 0] > 0, "no kill landed midway: \(tally)")
    }
}
