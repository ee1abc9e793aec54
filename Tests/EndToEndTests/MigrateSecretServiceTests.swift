import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// `vault migrate` between a vault file and the session's Secret Service (run the tests under
/// Tests/with-keyring.sh for a private gnome-keyring), through the built binary.
@Suite("Migrate command, file and secret-service", .kwalletSessionFlakes)
struct MigrateSecretServiceTests {
    /// One test's setup over the shared keyring fixture (``SessionKeyring``): a runner on the
    /// session keyring, a unique service, and a vault file for that service.
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
        func itemCount() throws -> Int { try SessionKeyring.itemCount(service, environment: vault.environment) }

        /// Leaves an item for `account` as a write that never finished leaves it: vault's
        /// attributes for a value that is not empty, and an empty value. On KWallet through the
        /// way that leaves it there: a CreateItem whose secret cannot be decrypted (it names a
        /// session that another connection opened, as a killed vault's session is gone), which
        /// KWallet refuses after storing the attributes. Elsewhere, where a refused CreateItem
        /// leaves nothing, secret-tool stores the same item.
        func leaveHalfWritten(_ account: String) throws {
            let now = ISO8601DateFormatter().string(from: Date())
            let attributes = [
                "service": service, "username": account, "xdg:schema": "org.freedesktop.Secret.Generic",
                "vault.created": now, "vault.updated": now, "vault.nonempty": "true",
            ]
            guard SecretServiceProvider.current == .kwallet else {
                let pairs = attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
                let stored = try runTool(
                    "/usr/bin/secret-tool", ["store", "--label=vault: \(service)/\(account)"] + pairs,
                    environment: vault.environment)
                #expect(stored.status == 0, "secret-tool store: \(stored.stderr)")
                return
            }
            let gdbus = ["call", "--session", "--dest", "org.freedesktop.secrets"]
            let opened = try runTool(
                "/usr/bin/gdbus",
                gdbus + [
                    "--object-path", "/org/freedesktop/secrets", "--method",
                    "org.freedesktop.Secret.Service.OpenSession", "plain", "<''>",
                ], environment: vault.environment)
            let session = try #require(
                opened.stdoutText.split(separator: "'").first { $0.hasPrefix("/org/freedesktop/secrets/session/") },
                "OpenSession: \(opened.stdoutText) \(opened.stderr)")
            let map = attributes.map { "'\($0.key)': '\($0.value)'" }.joined(separator: ", ")
            let created = try runTool(
                "/usr/bin/gdbus",
                gdbus + [
                    "--object-path", "/org/freedesktop/secrets/aliases/default", "--method",
                    "org.freedesktop.Secret.Collection.CreateItem",
                    "{'org.freedesktop.Secret.Item.Label': <'vault: \(service)/\(account)'>, "
                        + "'org.freedesktop.Secret.Item.Attributes': <{\(map)}>}",
                    "(objectpath '\(session)', @ay [], @ay [118, 97, 108, 117, 101], 'text/plain')", "false",
                ], environment: vault.environment)
            #expect(created.stderr.contains("Can't find session"), "CreateItem: \(created.stderr)")
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
        let refusedBack = try keyring.vault.run(["migrate", "--from", "secret-service", "--to", "file"])
        #expect(refusedBack.status == 7, "\(refusedBack.stderr)")
        #expect(try keyring.itemCount() == 4)
        try keyring.vault.run(["migrate", "--overwrite", "--from", "secret-service", "--to", "file"])
            .expectSuccess()
        #expect(try keyring.itemCount() == 0)
        #expect(try keyring.file() == inKeyring)
    }

    @Test("an item whose write never finished is absent to get; migrate and set fill it in place")
    func halfWrittenItem() throws {
        let keyring = try Keyring()
        defer { keyring.cleanUp() }
        let secrets = keyring.samples(3)
        try keyring.writeFile(secrets)
        try keyring.leaveHalfWritten("name-000")
        #expect(try keyring.itemCount() == 1)
        let got = try keyring.vault.run(["--backend", "secret-service", "get", "name-000"])
        #expect(got.status == 1 && got.stdout.isEmpty, "get: \(got.status) \(got.stderr)")

        let migrated = try keyring.vault.run(["migrate", "--from", "file", "--to", "secret-service"])
        migrated.expectSuccess()
        #expect(
            migrated.stderr.contains("migrated 3, skipped 0, conflicts 0; removed 3 from the source"),
            "\(migrated.stderr)")
        #expect(try keyring.keyring() == secrets)
        #expect(try keyring.itemCount() == 3)

        try keyring.leaveHalfWritten("later")
        try keyring.vault.run(["--backend", "secret-service", "set", "later"], stdin: Array("filled".utf8))
            .expectSuccess()
        let filled = try keyring.vault.run(["--backend", "secret-service", "get", "later"])
        filled.expectSuccess()
        #expect(filled.stdout == Array("filled".utf8))
        #expect(try keyring.itemCount() == 4)
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
            // On KWallet a kill can leave an item whose write never finished (halfWrittenItem):
            // the rerun fills it in place.
            try keyring.vault.run(migrate).expectSuccess()
            #expect(try keyring.keyring() == secrets, "after a kill at \(delay) s")
            #expect(try keyring.itemCount() == secrets.count, "each secret once, after a kill at \(delay) s")
            #expect(try keyring.file().isEmpty)
            return MigrateKillTests.Landing(finished: finished, left: left.count, arrived: arrived.count)
        }
        let tally = MigrateKillTests.Landing.describe(landed)
        print("migrate to the keyring took \(runTime) s; the kills landed: \(tally)")
        #expect(landed[.midway, default: 0] > 0, "no kill landed midway: \(tally)")
    }
}
