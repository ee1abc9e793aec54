import Foundation
import Testing
import VaultTestSupport

/// `vault secret-service enable` and `disable`: the activation file that makes the user's session
/// bus start this vault, refused where another provider runs or is installed for the user.
@Suite("secret-service enable and disable: the activation file")
struct SecretServiceEnableTests {
    /// A runner with a data folder of its own and a "system" folder holding another provider's
    /// activation file, as gnome-keyring installs one in /usr/share.
    static func runner() throws -> (VaultRunner, system: String) {
        var vault = try VaultRunner()
        let system = vault.path("system")
        try FileManager.default.createDirectory(atPath: system + "/dbus-1/services", withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/usr/bin/gnome-keyring-daemon --start\n"
            .write(
                toFile: system + "/dbus-1/services/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
        vault.environment["XDG_DATA_DIRS"] = system
        vault.environment["XDG_DATA_HOME"] = vault.path("data")
        return (vault, system)
    }

    static func userFile(_ vault: VaultRunner) -> String {
        vault.path("data") + "/dbus-1/services/org.freedesktop.secrets.service"
    }

    static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test("enable names this vault by absolute path and the file, overrides a system provider, disable removes it")
    func enableAndDisable() throws {
        var (vault, system) = try Self.runner()
        defer { vault.cleanUp() }
        let file = vault.path("my vault's file.age")
        let enabled = try vault.run(["--file", file, "secret-service", "enable"])
        enabled.expectSuccess()
        let text = try #require(Self.read(Self.userFile(vault)))
        let binary = URL(fileURLWithPath: VaultRunner.binary).resolvingSymlinksInPath().path
        #expect(
            text == """
                # Written by 'vault secret-service enable'; 'vault secret-service disable' removes it.
                [D-BUS Service]
                Name=org.freedesktop.secrets
                Exec=\(binary) --file '\(file.replacingOccurrences(of: "'", with: "'\\''"))' secret-service serve

                """)
        #expect(enabled.stderr.contains("overrides \(system)/dbus-1/services/org.freedesktop.secrets.service"))

        let doctor = try vault.run(["--file", file, "doctor"])
        let line = doctor.stdoutText.split(separator: "\n").first { $0.hasPrefix("provider ") } ?? ""
        #expect(line.contains("the session bus starts vault when asked (\(Self.userFile(vault)): \(binary)"), "\(line)")

        vault.environment["VAULT_BACKEND"] = "openbao"
        try vault.run(["secret-service", "enable"]).expectSuccess()
        #expect(
            Self.read(Self.userFile(vault))?.contains("Exec=\(binary) --backend openbao secret-service serve\n") == true
        )

        let disabled = try vault.run(["secret-service", "disable"])
        disabled.expectSuccess()
        #expect(!FileManager.default.fileExists(atPath: Self.userFile(vault)))
        let again = try vault.run(["secret-service", "disable"])
        again.expectSuccess()
        #expect(again.stderr.contains("nothing to remove"))
        #expect(FileManager.default.fileExists(atPath: system + "/dbus-1/services/org.freedesktop.secrets.service"))
    }

    @Test("another provider installed for the user: exit 7 unless --force, which keeps its file; disable puts it back")
    func otherProviderInstalled() throws {
        var (vault, _) = try Self.runner()
        defer { vault.cleanUp() }
        let folder = vault.path("data") + "/dbus-1/services"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let theirs = "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/usr/bin/keepassxc\n"
        try theirs.write(toFile: Self.userFile(vault), atomically: true, encoding: .utf8)

        try vault.run(["secret-service", "enable"]).expectFailure(7, "installed for this user")
        #expect(Self.read(Self.userFile(vault)) == theirs)
        try vault.run(["secret-service", "disable"]).expectSuccess()
        #expect(Self.read(Self.userFile(vault)) == theirs, "disable removed a file vault did not write")

        try vault.run(["secret-service", "enable", "--force"]).expectSuccess()
        #expect(Self.read(Self.userFile(vault))?.hasPrefix("# Written by 'vault secret-service enable'") == true)
        #expect(Self.read(Self.userFile(vault) + ".before-vault") == theirs)
        try vault.run(["secret-service", "disable"]).expectSuccess()
        #expect(Self.read(Self.userFile(vault)) == theirs)
        #expect(!FileManager.default.fileExists(atPath: Self.userFile(vault) + ".before-vault"))
    }

    @Test("another provider owns the name on the bus: exit 7 unless --force")
    func otherProviderRunning() throws {
        try requireComponent(PrivateBus.missingTools(for: .silentOwner))
        var (vault, _) = try Self.runner()
        defer { vault.cleanUp() }
        let bus = try PrivateBus(.silentOwner)
        defer { bus.stop() }
        vault.environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        vault.environment["VAULT_TIMEOUT"] = "2"
        try vault.run(["secret-service", "enable"], timeout: 60).expectFailure(7, "runs on the session bus: python3")
        #expect(!FileManager.default.fileExists(atPath: Self.userFile(vault)))
        let forced = try vault.run(["secret-service", "enable", "--force"], timeout: 60)
        forced.expectSuccess()
        #expect(forced.stderr.contains("python3 still owns the name until it stops"))
        let doctor = try vault.run(["doctor"], timeout: 60)
        #expect(
            doctor.stdoutText.contains("vault is not the Secret Service: python3 owns the name"), "\(doctor.stdoutText)"
        )
    }

    @Test("bad uses: an operand (2), the Secret Service as the provider's store (2), an unknown action (2)")
    func badUses() throws {
        var (vault, _) = try Self.runner()
        defer { vault.cleanUp() }
        try vault.run(["secret-service", "enable", "now"]).expectFailure(2, "usage: vault secret-service enable")
        try vault.run(["--backend", "secret-service", "secret-service", "enable"]).expectFailure(
            2, "--backend is 'secret-service'")
        try vault.run(["secret-service", "enable"], env: ["VAULT_BACKEND": "secret-service"]).expectFailure(
            2, "VAULT_BACKEND is 'secret-service'")
        try vault.run(["secret-service", "frobnicate"]).expectFailure(2, "unknown 'vault secret-service' action")
        #expect(!FileManager.default.fileExists(atPath: Self.userFile(vault)))
    }
}
