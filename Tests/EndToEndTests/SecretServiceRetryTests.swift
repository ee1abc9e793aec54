import Foundation
import Testing
import VaultTestSupport

/// A read that the provider answers badly once is retried on a fresh session: KWallet now and
/// then sends no secret and no error (libsecret then hands over nothing), or "Can't find session".
/// A fake Secret Service (Tests/fake-secret-service.py) on a private bus answers the first
/// GetSecrets of its life that way, so each case happens on every run.
@Suite("Secret Service: a failed read is retried on a fresh session")
struct SecretServiceRetryTests {
    @Test(
        "no secret and no error, or \"Can't find session\", once → get succeeds on a new session",
        arguments: ["empty", "no-session"])
    func retriedOnFreshSession(mode: String) throws {
        // The system's python3, which has python3-gi (GLib's Gio), whatever else is on PATH.
        let python = try #require(findExecutable("python3", in: ["/usr/bin"]), "no /usr/bin/python3")
        try requireComponent(
            FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
                ? nil : "python3-gi is not installed")
        for tool in ["dbus-run-session", "gdbus"] {
            try requireComponent(findExecutable(tool) == nil ? "\(tool) is not installed" : nil)
        }
        let root = try #require(packageRoot())
        let script = """
            set -u
            \(python) "$ROOT/Tests/fake-secret-service.py" "$MODE" "$OUT/calls" 2>"$OUT/fake.err" &
            fake=$!
            tries=0
            until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true; do
                tries=$((tries + 1)); [ "$tries" -lt 200 ] || { kill "$fake"; exit 10; }; sleep 0.1
            done
            timeout 60 "$VAULT_BINARY" --backend secret-service --service fake get a >"$OUT/out" 2>"$OUT/err"
            echo "$?" >"$OUT/status"
            kill "$fake"
            """
        let run = try HarnessScript(
            // A bus of its own that activates nothing: only the fake can answer.
            [
                "-c", "config=$1; shift; exec dbus-run-session --config-file=\"$config\" -- \"$@\"", "sh",
                "\(root.path)/Tests/private-bus.conf",
            ],
            script: script,
            environment: ["MODE": mode], unset: ["VAULT_SERVICE"])
        defer { run.cleanUp() }
        let calls = run.read("calls").split(separator: "\n")
        #expect(run.read("status") == "0", "\(mode): \(run.read("err")) \(run.read("fake.err"))")
        #expect(run.read("out") == "fake value")
        #expect(calls.filter { $0 == "GetSecrets" }.count == 2, "\(calls)")
        #expect(calls.filter { $0 == "OpenSession plain" }.count == 2, "a fresh session: \(calls)")
    }
}
