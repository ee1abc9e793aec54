import Foundation
import Testing
import VaultAge
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault secret-service run`: COMMAND on a private session bus, its exit status, and no process
/// left behind however COMMAND (or vault) ends.
@Suite("secret-service run: a private bus for one command")
struct SecretServiceRunTests {
    /// A COMMAND that stores and looks up an item with secret-tool (so that the bus starts the
    /// provider), prints the bus address it got, the process ids of the bus daemon and of the
    /// provider, and whether it inherited the key variable, then runs `then`.
    static func reporting(then: String) -> [String] {
        let script = """
            pid() {
              gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                --method org.freedesktop.DBus.GetConnectionUnixProcessID "$1" | tr -dc 0-9
            }
            printf 'v4lue' | secret-tool store --label=run app run-test
            echo "looked=$(secret-tool lookup app run-test)"
            echo "address=$DBUS_SESSION_BUS_ADDRESS"
            echo "daemon=$(pid org.freedesktop.DBus)"
            echo "provider=$(pid org.freedesktop.secrets)"
            echo "identity=${VAULT_IDENTITY-unset}"
            \(then)
            """
        return ["secret-service", "run", "--", "/bin/sh", "-c", script]
    }

    static func requireTools() throws {
        try requireComponent(ServedVault.missingTools())
    }

    /// A vault with an identity (which the provider gets and COMMAND does not), and a runtime
    /// folder of its own.
    static func vault() throws -> IdentityVault {
        var vault = try IdentityVault()
        vault.runner.environment["XDG_RUNTIME_DIR"] = try runtimeFolder(vault.runner)
        return vault
    }

    /// What a COMMAND of ``reporting(then:)`` saw, checked: the provider answered, and the bus
    /// daemon and the provider are gone.
    static func checkReport(_ result: ToolResult, _ vault: IdentityVault) throws {
        let output = result.stdoutText
        #expect(value("looked", in: output) == "v4lue", "\(output) \(result.stderr)")
        #expect(value("identity", in: output) == "unset")
        let daemon = try #require(value("daemon", in: output).flatMap { pid_t($0) }, "\(output) \(result.stderr)")
        let provider = try #require(value("provider", in: output).flatMap { pid_t($0) }, "\(output)")
        #expect(!LeftBehind.isAlive(daemon, mentioning: "vault-bus."), "the bus daemon \(daemon) still runs")
        #expect(!LeftBehind.isAlive(provider, mentioning: "secret-service"), "the provider \(provider) still runs")
        #expect(LeftBehind.processes(mentioning: vault.runner.environment["XDG_RUNTIME_DIR"]! + "/vault-bus.").isEmpty)
        #expect(
            try VaultFile.read(vault.runner.vaultFile, identity: vault.identity).keys.contains {
                $0.contains("i/login/")
            })
    }

    static func value(_ key: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    @Test("COMMAND's exit status; the bus starts the provider for it; bus, provider and folder are gone after")
    func exitStatus() throws {
        try Self.requireTools()
        let vault = try Self.vault()
        defer { vault.cleanUp() }
        let result = try vault.runner.run(Self.reporting(then: "exit 7"), timeout: 60)
        #expect(result.status == 7, "stderr: \(result.stderr)")
        try Self.checkReport(result, vault)
        let address = try #require(Self.value("address", in: result.stdoutText))
        #expect(address.hasPrefix("unix:path=\(vault.runner.environment["XDG_RUNTIME_DIR"]!)/vault-bus."), "\(address)")
        let folder = address.dropFirst("unix:path=".count).split(separator: ",")[0]
        #expect(!FileManager.default.fileExists(atPath: String(folder)), "\(folder) is left")
    }

    @Test("COMMAND killed by SIGKILL: exit 137, as a shell reports it, and the bus and the provider are gone")
    func commandKilled() throws {
        try Self.requireTools()
        let vault = try Self.vault()
        defer { vault.cleanUp() }
        let result = try vault.runner.run(Self.reporting(then: "kill -KILL $$"), timeout: 60)
        #expect(result.status == 128 + SIGKILL, "stderr: \(result.stderr)")
        try Self.checkReport(result, vault)
    }

    @Test("vault itself killed by SIGKILL: the kernel ends the bus (PR_SET_PDEATHSIG), and the provider with it")
    func vaultKilled() throws {
        try Self.requireTools()
        let vault = try Self.vault()
        defer { vault.cleanUp() }
        let runtime = vault.runner.environment["XDG_RUNTIME_DIR"]!
        let marker = vault.runner.path("reported")
        let running = try ChildProcess(
            VaultRunner.binary, Self.reporting(then: "touch '\(marker)'; exec sleep 600"),
            environment: vault.runner.environment, ownGroup: true)
        defer { Glibc.kill(-running.pid, SIGKILL) }
        try #require(LeftBehind.waitUntil(timeout: 60) { FileManager.default.fileExists(atPath: marker) })
        let before = LeftBehind.processes(mentioning: runtime + "/vault-bus.")
        #expect(before.count >= 3, "the bus, the provider and COMMAND were not all found running: \(before)")
        Glibc.kill(running.pid, SIGKILL)
        _ = try running.wait(seconds: 30)
        // COMMAND is the user's, in vault's process group as a shell's job is: end it as the shell
        // would; the bus and the provider, in a group of their own, must end by themselves.
        Glibc.kill(-running.pid, SIGKILL)
        #expect(
            LeftBehind.waitUntil(timeout: 30) { LeftBehind.processes(mentioning: runtime + "/vault-bus.").isEmpty },
            "left behind: \(LeftBehind.processes(mentioning: runtime + "/vault-bus."))")
    }

    @Test(
        "SIGTERM to vault goes on to COMMAND (docker stop of a container whose PID 1 is vault): its status, the bus gone"
    )
    func terminationForwarded() throws {
        try Self.requireTools()
        let vault = try Self.vault()
        defer { vault.cleanUp() }
        let runtime = vault.runner.environment["XDG_RUNTIME_DIR"]!
        let marker = vault.runner.path("started")
        let script = "trap 'echo terminated; exit 9' TERM; touch '\(marker)'; while :; do sleep 0.1; done"
        let running = try ChildProcess(
            VaultRunner.binary, ["secret-service", "run", "--", "/bin/sh", "-c", script],
            environment: vault.runner.environment, ownGroup: true)
        defer { Glibc.kill(-running.pid, SIGKILL) }
        try #require(LeftBehind.waitUntil(timeout: 60) { FileManager.default.fileExists(atPath: marker) })
        Glibc.kill(running.pid, SIGTERM)
        let result = try #require(try running.wait(seconds: 60))
        #expect(result.status == 9, "\(result.stderr)")
        #expect(result.stdoutText == "terminated\n")
        #expect(LeftBehind.processes(mentioning: runtime + "/vault-bus.").isEmpty)
    }

    @Test("bad uses: no COMMAND (2), COMMAND not found (127), no dbus-daemon (5), the Secret Service as the store (2)")
    func badUses() throws {
        try Self.requireTools()
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["XDG_RUNTIME_DIR"] = try Self.runtimeFolder(vault)
        try vault.run(["secret-service", "run"]).expectFailure(2, "needs a COMMAND")
        let missing = try vault.run(["secret-service", "run", "--", "no-such-command-here"], timeout: 60)
        #expect(missing.status == 127)
        #expect(missing.stderr == "vault: secret-service run: no-such-command-here: command not found\n")
        try vault.run(["secret-service", "run", "--", "/bin/true"], env: ["PATH": vault.path("empty")])
            .expectFailure(5, "dbus-daemon was not found in PATH")
        try vault.run(["--backend", "secret-service", "secret-service", "run", "--", "/bin/true"])
            .expectFailure(2, "--backend is 'secret-service'")
        let left = try FileManager.default.contentsOfDirectory(atPath: vault.environment["XDG_RUNTIME_DIR"]!)
        #expect(left.isEmpty, "left in the runtime folder: \(left)")
    }

    /// A runtime folder of the test's own (0700), where run makes its bus's folder.
    static func runtimeFolder(_ vault: VaultRunner) throws -> String {
        let folder = vault.path("runtime")
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }
}

/// Processes found by what their command line or environment mentions (a private bus's folder is
/// in its daemon's arguments and in the address every service it starts inherits).
enum LeftBehind {
    static func processes(mentioning text: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            ["cmdline", "environ"].contains { name in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(name)") else { return false }
                return String(decoding: data, as: UTF8.self).contains(text) && !isZombie(pid)
            }
        }
    }

    /// Whether `pid` still runs and its command line mentions `text` (not another process that
    /// took the number since).
    static func isAlive(_ pid: pid_t, mentioning text: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).contains(text) && !isZombie(pid)
    }

    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return true }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    /// Checks `condition` every 50 ms until it holds (true) or `timeout` seconds pass (false): a
    /// bound for something that should happen at once, not a measure of time.
    static func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
