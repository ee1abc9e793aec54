import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A living token's refresh never makes `vault get` wait past `VAULT_TIMEOUT`: not for a lock
/// another process holds, not for a refresh command that hangs (killed with all it started).
/// And the folder of its locks must be the user's, closed to others.
@Suite("Refresh waits and folders")
struct RefreshWaitTests {
    /// Generous: the machine running the tests is loaded; vault itself gives up after 2 s.
    static let timeout = 60.0

    @Test("a refresh lock held by another process: VAULT_TIMEOUT=2 get exits 5 naming the refresh")
    func heldLock() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run(["set", "tok", "--expires-in", "1h", "--refresh-command", "echo first"]).expectSuccess()
        #expect(try vault.run(["get", "tok"]).stdoutText == "first")
        // Due again; its lock file now exists beside the vault file (no XDG_RUNTIME_DIR).
        try vault.run(["set", "tok", "--expires-in", "1h", "--refresh-command", "echo second"]).expectSuccess()
        let locks = try FileManager.default.contentsOfDirectory(atPath: vault.directory.path)
            .filter { $0.hasPrefix(".vault-refresh-") && $0.hasSuffix(".lock") }
        let lock = vault.path(try #require(locks.first, "no refresh lock in \(vault.directory.path)"))
        // `-o`: flock itself holds the lock, not the sleep it runs; its group is killed at the end.
        let holder = try ChildProcess(
            "/usr/bin/flock", ["-o", lock, "sleep", "60"], environment: ["PATH": "/usr/bin:/bin"], ownGroup: true)
        func release() {
            kill(-holder.pid, SIGKILL)
            holder.kill()
        }
        defer { release() }
        // Held once `flock -n` fails.
        let start = Date()
        while try runTool("/usr/bin/flock", ["-n", lock, "true"]).status == 0, Date().timeIntervalSince(start) < 30 {
            usleep(20_000)
        }
        let waited = try vault.run(["get", "tok"], env: ["VAULT_TIMEOUT": "2"], timeout: Self.timeout)
        waited.expectFailure(5, "gave up after 2 s waiting for the refresh of 'tok'")
        release()
        #expect(try vault.run(["get", "tok"], timeout: Self.timeout).stdoutText == "second")
    }

    @Test("a refresh command that hangs is killed with its children after VAULT_TIMEOUT: exit 5, one line")
    func hungCommand() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let pidFile = vault.path("sleeper")
        // The shell waits for a child that holds the output pipe open too.
        let command = "sleep 60 & echo $! >'\(pidFile)'; wait"
        try vault.run(["set", "tok", "--expires-in", "1h", "--refresh-command", command]).expectSuccess()
        let result = try vault.run(["get", "tok"], env: ["VAULT_TIMEOUT": "2"], timeout: Self.timeout)
        result.expectFailure(5, "the refresh command of 'tok' did not finish within 2 s (VAULT_TIMEOUT)")
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let sleeper = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed: gone, or a zombie waiting for whoever adopted it.
        let deadline = Date().addingTimeInterval(Self.timeout)
        var state = ""
        repeat {
            state = (try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8)) ?? ""
            if state.isEmpty || state.contains(") Z ") { break }
            usleep(20_000)
        } while Date() < deadline
        #expect(state.isEmpty || state.contains(") Z "), "the command's child still runs: \(state)")
    }

    @Test("a lock folder open to others or another user's is refused: exit 9, one line")
    func folders() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let runtime = vault.path("runtime")
        try FileManager.default.createDirectory(atPath: runtime + "/vault", withIntermediateDirectories: true)
        #expect(chmod(runtime + "/vault", 0o777) == 0)
        try vault.run(["set", "tok", "--expires-in", "1h", "--refresh-command", "echo fresh"]).expectSuccess()
        try vault.run(["get", "tok"], env: ["XDG_RUNTIME_DIR": runtime])
            .expectFailure(9, "the folder \(runtime)/vault is open to others (mode 777)")
        #expect(chmod(runtime + "/vault", 0o700) == 0)
        if geteuid() == 0 {
            // `sudo -E` keeps the user's XDG_RUNTIME_DIR: root uses no folder of theirs.
            #expect(chown(runtime + "/vault", 4242, 4242) == 0)
            try vault.run(["get", "tok"], env: ["XDG_RUNTIME_DIR": runtime])
                .expectFailure(9, "the folder \(runtime)/vault belongs to uid 4242")
            #expect(chown(runtime + "/vault", 0, 0) == 0)
        }
        #expect(try vault.run(["get", "tok"], env: ["XDG_RUNTIME_DIR": runtime]).stdoutText == "fresh")
    }
}
