import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// vault never starts a D-Bus session bus: without DBUS_SESSION_BUS_ADDRESS, GLib would run
/// `dbus-launch` (with DISPLAY set) and hand it vault's whole environment, unlock variables included.
@Suite("Session bus: never started by vault")
struct SessionBusTests {
    @Test(
        "no bus address and DISPLAY set: every Secret Service use is exit 5 and dbus-launch never runs",
        arguments: [
            ["--backend", "secret-service", "ls"],
            ["--backend", "secret-service", "get", "token"],
            ["get", "token"],  // auto, no file named
            ["migrate", "--from", "secret-service", "--to", "file"],
            ["migrate", "--from", "file", "--to", "secret-service"],
        ])
    func neverLaunchesABus(arguments: [String]) throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let trap = try FakeDBusLaunch(in: vault)
        vault.environment = trap.environment(vault.environment)
        vault.environment["VAULT_PASSPHRASE"] = "must-not-reach-dbus-launch"
        if arguments.first != "migrate" { vault.environment.removeValue(forKey: "VAULT_FILE") }
        if arguments.last == "secret-service" {
            try vault.run(["set", "token"], stdin: Array("v".utf8), env: ["VAULT_BACKEND": "file"]).expectSuccess()
        }

        let result = try vault.run(arguments)
        if arguments == ["get", "token"] {
            // auto finds no Secret Service and uses the (absent) file: not found, no bus started.
            result.expectFailure(1)
        } else {
            result.expectFailure(5, "no D-Bus session bus")
        }
        #expect(!trap.ran, "dbus-launch was started: \(trap.log)")
    }

    @Test("VAULT_FALLBACK=secret-service without a bus address is exit 5; dbus-launch never runs")
    func fallbackNeverLaunchesABus() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        let trap = try FakeDBusLaunch(in: vault)
        vault.environment = trap.environment(vault.environment)
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try vault.run(["get", "token"], env: ["VAULT_FALLBACK": "secret-service"]).expectFailure(
            5, "no D-Bus session bus")
        #expect(!trap.ran, "dbus-launch was started: \(trap.log)")
    }
}

/// A `dbus-launch` first on PATH that records that it ran (and with what environment), with
/// DISPLAY set, no DBUS_SESSION_BUS_ADDRESS and an XDG_RUNTIME_DIR without a `bus` socket.
struct FakeDBusLaunch {
    let directory: String
    var marker: String { directory + "/ran" }

    init(in vault: VaultRunner) throws {
        directory = vault.path("fake-bin")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: vault.path("runtime"), withIntermediateDirectories: true)
        let script = directory + "/dbus-launch"
        try "#!/bin/sh\nenv > '\(marker)'\nexit 1\n".write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
    }

    func environment(_ base: [String: String]) -> [String: String] {
        var environment = base
        environment["PATH"] = directory + ":" + (base["PATH"] ?? "/usr/bin:/bin")
        environment["DISPLAY"] = ":99"
        environment["XDG_RUNTIME_DIR"] = URL(fileURLWithPath: directory).deletingLastPathComponent().path + "/runtime"
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return environment
    }

    var ran: Bool { FileManager.default.fileExists(atPath: marker) }
    var log: String { (try? String(contentsOfFile: marker, encoding: .utf8)) ?? "" }
}
