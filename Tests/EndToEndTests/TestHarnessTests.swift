import Foundation
import Testing
import VaultTestSupport

/// What the test harness promises the rest of the suite: no program it runs can hold a run
/// forever, and the session keyring outlives its daemon.
@Suite("The test harness")
struct TestHarnessTests {
    @Test("runTool stops a program past its time limit, reports status -1, and records an issue naming it")
    func runToolTimeLimit() throws {
        var result: ToolResult?
        let started = Date()
        try withKnownIssue {
            result = try runTool("/bin/sleep", ["60"], timeout: 0.5)
        } matching: { issue in
            String(describing: issue).contains("/bin/sleep") && String(describing: issue).contains("did not finish")
        }
        #expect(result?.timedOut == true)
        #expect(Date().timeIntervalSince(started) < 30, "runTool waited for the program to end")
    }

    @Test("with-keyring.sh: when gnome-keyring-daemon aborts, the bus starts it again with the same unlocked keyring")
    func keyringComesBack() throws {
        try requireKeyringComponent(
            ["gnome-keyring-daemon", "secret-tool", "gdbus", "dbus-run-session"].first { findExecutable($0) == nil }
                .map { "\($0) is not installed" })
        let root = try #require(packageRoot())
        let script = """
            owner() {
              gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets \\
                | sed 's/.*uint32 \\([0-9]*\\).*/\\1/'
            }
            printf 'v4lue' | secret-tool store --label=harness app harness-test
            first=$(owner)
            kill -ABRT "$first"
            while kill -0 "$first" 2>/dev/null; do sleep 0.1; done
            echo "looked=$(secret-tool lookup app harness-test)"
            second=$(owner)
            [ -n "$second" ] && [ "$second" != "$first" ] && echo restarted=yes
            """
        let result = try runTool(
            "/bin/sh", [root.appendingPathComponent("Tests/with-keyring.sh").path, "sh", "-c", script],
            environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("looked=v4lue\n"), "\(result.stdoutText) \(result.stderr)")
        #expect(result.stdoutText.contains("restarted=yes"), "\(result.stdoutText)")
        #expect(result.stderr.contains("the bus started it 2 times in all"), "\(result.stderr)")
    }
}
