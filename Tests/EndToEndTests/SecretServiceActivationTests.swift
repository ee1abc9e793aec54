import Foundation
import Testing
import VaultTestSupport

/// vault's provider on a bus as a login has one: started by the bus from the file `enable`
/// wrote, and unlocked and locked from other shells (other session keyrings) over the bus.
@Suite("secret-service enable: started by the bus; unlock and lock from another shell")
struct SecretServiceActivationTests {
    /// A login's world in the vault's folder: its data folder (where enable writes), an empty
    /// system data folder (so no installed provider starts instead), a runtime folder, and a
    /// session bus reading them, whose activated services get `busKeys` (the provider's keys).
    struct Login {
        let vault: IdentityVault
        let bus: PrivateBus
        var environment: [String: String]

        init(busKeys: Bool) throws {
            try requireKeyringComponent(ServedVault.missingTools())
            vault = try IdentityVault()
            var environment = vault.runner.environment
            for folder in ["data", "system", "runtime"] {
                try FileManager.default.createDirectory(
                    atPath: vault.runner.path(folder), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            environment["XDG_DATA_HOME"] = vault.runner.path("data")
            environment["XDG_DATA_DIRS"] = vault.runner.path("system")
            environment["XDG_RUNTIME_DIR"] = vault.runner.path("runtime")
            var busEnvironment = environment
            if !busKeys { busEnvironment["VAULT_IDENTITY"] = nil }
            busEnvironment["VAULT_FILE"] = nil  // the activation file names the file
            bus = try PrivateBus(activatingWith: busEnvironment)
            environment.merge(bus.environment) { $1 }
            self.environment = environment
            try vault.runner.run(["set", "seed"], stdin: Array("s".utf8)).expectSuccess()
        }

        /// What the bus and the services it started wrote to standard error.
        var busLog: String {
            (try? String(contentsOf: bus.directory.appendingPathComponent("dbus-daemon.err"), encoding: .utf8)) ?? ""
        }

        func cleanUp() {
            bus.stop()
            vault.cleanUp()
        }

        /// Runs vault (or, with `program`, another program) in this login, with `extra` variables.
        func run(
            _ arguments: [String], program: String = VaultRunner.binary, stdin: String = "",
            env extra: [String: String] = [:], unset: [String] = []
        ) throws -> ToolResult {
            var environment = self.environment.merging(extra) { $1 }
            for name in unset { environment[name] = nil }
            return try runTool(
                program, arguments, input: Array(stdin.utf8), environment: environment, timeout: 60, ownGroup: true)
        }

        /// Whether the default collection is locked: its Locked property is true, or reading it is
        /// refused as locked (org.freedesktop.Secret.Error.IsLocked).
        func isLocked() throws -> Bool {
            let answer = try collectionLocked()
            return answer == "(<true>,)" || answer.contains("org.freedesktop.Secret.Error.IsLocked")
        }

        /// The default collection's Locked property, as gdbus prints it ("(<true>,)"), or its error.
        func collectionLocked() throws -> String {
            let reply = try run(
                [
                    "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                    "/org/freedesktop/secrets/aliases/default", "--method", "org.freedesktop.DBus.Properties.Get",
                    "org.freedesktop.Secret.Collection", "Locked",
                ], program: findExecutable("gdbus")!)
            return reply.status == 0 ? reply.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) : reply.stderr
        }

        func secretTool(_ arguments: [String], stdin: String = "") throws -> ToolResult {
            try run(arguments, program: findExecutable("secret-tool")!, stdin: stdin, unset: ["VAULT_IDENTITY"])
        }

        /// The process id of the owner of org.freedesktop.secrets, or nil.
        func providerPID() throws -> pid_t? {
            let reply = try run(
                [
                    "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                    "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets",
                ], program: findExecutable("gdbus")!)
            // "(uint32 1234,)"
            guard reply.status == 0, let number = reply.stdoutText.split(separator: " ").last else { return nil }
            return pid_t(number.filter(\.isNumber))
        }
    }

    @Test("after enable, the first client's call starts vault (by absolute path, for the file) and it serves")
    func busActivation() throws {
        let login = try Login(busKeys: true)
        defer { login.cleanUp() }
        try login.run(["secret-service", "enable"]).expectSuccess()
        #expect(try login.providerPID() == nil, "a provider ran before anything asked")
        let stored = try login.secretTool(["store", "--label=activated", "app", "activation"], stdin: "v4lue")
        #expect(stored.status == 0, "\(stored.stderr) \(login.busLog)")
        #expect(try login.secretTool(["lookup", "app", "activation"]).stdoutText == "v4lue")
        let pid = try #require(try login.providerPID())
        let arguments = (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data())
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        let binary = URL(fileURLWithPath: VaultRunner.binary).resolvingSymlinksInPath().path
        #expect(arguments == [binary, "--file", login.vault.runner.vaultFile, "secret-service", "serve"])
        let doctor = try login.run(["doctor"])
        #expect(
            doctor.stdoutText.contains(
                "provider        vault is the Secret Service now: vault (\(binary)) owns the name"),
            "\(doctor.stdoutText)")
        #expect(
            try VaultFile.read(login.vault.runner.vaultFile, identity: login.vault.identity).keys
                .contains { $0.hasPrefix("org.freedesktop.secrets\ti/") })
    }

    @Test("vault unlock in another shell (another session keyring) unlocks the provider over the bus; lock locks it")
    func unlockAndLock() throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: KeyringSandbox.keyctl) ? nil : "not installed: keyctl")
        let login = try Login(busKeys: false)
        defer { login.cleanUp() }
        try login.run(["secret-service", "enable"]).expectSuccess()
        // Started by the bus as a client's first call would (secret-tool lookup does not start
        // a service); without a key its collection is locked.
        let started = try login.run(
            [
                "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.StartServiceByName", "org.freedesktop.secrets", "0",
            ], program: findExecutable("gdbus")!)
        #expect(started.status == 0, "\(started.stderr) \(login.busLog)")
        #expect(try login.isLocked(), "\(login.busLog)")

        // In CI nothing is cached and nothing is handed over.
        let inCI = try login.run(
            ["session", "-", VaultRunner.binary, "unlock", "--for", "60"], program: KeyringSandbox.keyctl,
            env: ["CI": "true"])
        #expect(inCI.status == 2, "\(inCI.stderr)")
        #expect(!inCI.stderr.contains("provider"), "\(inCI.stderr)")
        #expect(try login.isLocked())

        let unlocked = try login.run(
            ["session", "-", VaultRunner.binary, "unlock", "--for", "60"], program: KeyringSandbox.keyctl)
        #expect(unlocked.status == 0, "\(unlocked.stderr) \(login.busLog)")
        let pid = try #require(try login.providerPID(), "\(unlocked.stderr) \(login.busLog)")
        #expect(try login.collectionLocked() == "(<false>,)")
        #expect(
            unlocked.stderr.contains("unlocked vault's Secret Service provider (pid \(pid)) for the same file"),
            "\(unlocked.stderr) \(login.busLog)")
        let stored = try login.secretTool(["store", "--label=unlocked", "app", "unlock"], stdin: "v4lue")
        #expect(stored.status == 0, "\(stored.stderr) \(login.busLog)")
        #expect(try login.secretTool(["lookup", "app", "unlock"]).stdoutText == "v4lue")

        let lock = try login.run(
            ["session", "-", VaultRunner.binary, "lock"], program: KeyringSandbox.keyctl, unset: ["VAULT_IDENTITY"])
        #expect(lock.status == 0, "\(lock.stderr)")
        #expect(lock.stderr.contains("locked vault's Secret Service provider (pid \(pid))"), "\(lock.stderr)")
        #expect(try login.isLocked(), "\(login.busLog)")
    }

    @Test("unlock and lock where the bus address names no bus: they do their own work, exit 0")
    func noBus() throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: KeyringSandbox.keyctl) ? nil : "not installed: keyctl")
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "seed"], stdin: Array("s".utf8)).expectSuccess()
        let stale = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(vault.runner.path("no-bus"))"]
        for arguments in [["unlock", "--for", "60"], ["lock"]] {
            let result = try runTool(
                KeyringSandbox.keyctl, ["session", "-", VaultRunner.binary] + arguments,
                environment: vault.runner.environment.merging(stale) { $1 }, timeout: 60, ownGroup: true)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    @Test("a provider that is not vault is never handed the key: unlock sends nothing to it")
    func notVault() throws {
        try requireComponent(PrivateBus.missingTools(for: .silentOwner))
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "seed"], stdin: Array("s".utf8)).expectSuccess()
        let bus = try PrivateBus(.silentOwner)
        defer { bus.stop() }
        // The owner answers no call: had vault called it, unlock would wait VAULT_TIMEOUT and exit 5.
        let unlocked = try runTool(
            KeyringSandbox.keyctl, ["session", "-", VaultRunner.binary, "unlock", "--for", "60"],
            environment: vault.runner.environment.merging(bus.environment) { $1 }.merging(["VAULT_TIMEOUT": "3"]) {
                $1
            },
            timeout: 60, ownGroup: true)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(!unlocked.stderr.contains("provider"), "\(unlocked.stderr)")
    }
}
