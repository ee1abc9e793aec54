import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A refresh command's end is vault's to see and vault's to cause (docs/tokens.md, "Refresh
/// commands"): a caller that ignores SIGCHLD cannot make a failed command look like a success,
/// and a vault that is told to stop takes the command's whole process group with it.
@Suite("Refresh command lifetime")
struct RefreshCommandLifetimeTests {
    @Test("with SIGCHLD ignored by vault's caller, a command that fails is still a failure (exit 5)")
    func ignoredChildSignal() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run([
            "set", "t", "--expires-in", "1h", "--refresh-command",
            "echo 'error: backend down' >&2; echo not-a-token; exit 1",
        ]).expectSuccess()
        // Python as the caller: it ignores SIGCHLD, and exec keeps an ignored signal ignored.
        let python = "/usr/bin/python3"
        try requireComponent(FileManager.default.isExecutableFile(atPath: python) ? nil : "no \(python)")
        let script =
            "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
        let got = try runTool(
            python, ["-c", script, VaultRunner.binary, "get", "t"], input: [], environment: vault.environment)
        #expect(got.status == 5, "stderr: \(got.stderr)")
        #expect(got.stdout.isEmpty, "printed: \(got.stdoutText)")
        #expect(got.stderr.contains("exited with status 1"), "\(got.stderr)")
        #expect(try vault.run(["get", "t", "--allow-expired"]).stdoutText != "not-a-token")
    }

    @Test(
        "SIGTERM, SIGINT or SIGHUP to vault ends its refresh command's process group",
        arguments: [SIGTERM, SIGINT, SIGHUP])
    func signalEndsCommand(_ signal: Int32) throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let started = vault.path("started")
        // `$$` is the shell's pid, which leads the command's group; `sleep`, started before the
        // file is written, is a second member.
        try vault.run([
            "set", "t", "--expires-in", "1h", "--refresh-command",
            "sleep 120 & echo $$ >'\(started).tmp'; mv '\(started).tmp' '\(started)'; wait; echo tok",
        ]).expectSuccess()
        let child = try vault.start(["get", "t"], env: ["VAULT_TIMEOUT": "300"])
        let group = try #require(Self.waitForContents(started, seconds: 60).flatMap { pid_t($0) })
        #expect(Self.liveMembers(of: group) >= 2, "the command's group did not start as expected")
        kill(child.pid, signal)
        let result = try #require(try child.wait(seconds: 60), "vault did not end")
        #expect(result.status != 0 && result.stdout.isEmpty)
        #expect(Self.waitUntilEmpty(group, seconds: 60), "the refresh command's group outlived vault")
    }

    /// The file's text once it exists (written by rename, so whole), within `seconds`.
    static func waitForContents(_ path: String, seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            usleep(20_000)
        }
        return nil
    }

    /// How many processes of `group` are alive (zombies, dead and waiting for a parent, are not).
    static func liveMembers(of group: pid_t) -> Int {
        var count = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(entry) != nil {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", fields[0] != "X", Int32(fields[2]) == group else { continue }
            count += 1
        }
        return count
    }

    /// Waits until no live process is left in `group`; false if one still is after `seconds`
    /// (the command sleeps far longer, so only an ended group passes).
    static func waitUntilEmpty(_ group: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if liveMembers(of: group) == 0 { return true }
            usleep(50_000)
        }
        return false
    }
}
