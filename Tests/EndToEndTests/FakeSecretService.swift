import Foundation
import Testing
import VaultTestSupport

/// Tests/fake-secret-service.py on a session bus of its own that activates nothing, so that only
/// the fake can answer: a Secret Service whose misbehaviour a test chooses (see the script).
enum FakeSecretService {
    /// Starts the fake in `mode`, waits until it owns org.freedesktop.secrets, runs `commands`
    /// (a shell script with VAULT_BINARY and OUT set; it leaves what it saw in files in OUT),
    /// and stops the fake. The fake's log of method calls is the file "calls".
    static func run(mode: String, commands: String) throws -> HarnessScript {
        // The system's python3, which has python3-gi and python3-cryptography, whatever else is on PATH.
        let python = try #require(findExecutable("python3", in: ["/usr/bin"]), "no /usr/bin/python3")
        for (module, package) in [("gi", "python3-gi"), ("cryptography", "python3-cryptography")] {
            try requireComponent(
                FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/\(module)/__init__.py")
                    ? nil : "\(package) is not installed")
        }
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
            \(commands)
            kill "$fake"
            """
        return try HarnessScript(
            [
                "-c", "config=$1; shift; exec dbus-run-session --config-file=\"$config\" -- \"$@\"", "sh",
                "\(root.path)/Tests/private-bus.conf",
            ],
            script: script,
            environment: ["MODE": mode], unset: ["VAULT_SERVICE"])
    }

    /// A shell line that runs `vault --backend secret-service --service fake ARGUMENTS`, with
    /// `input` on standard input if given, and leaves its output, errors and status in OUT as
    /// NAME.out, NAME.err and NAME.status.
    static func vault(_ name: String, _ arguments: String, input: String? = nil) -> String {
        let stdin = input.map { "printf %s '\($0)' | " } ?? ""
        return """
            \(stdin)timeout 60 "$VAULT_BINARY" --backend secret-service --service fake \(arguments) \
            >"$OUT/\(name).out" 2>"$OUT/\(name).err"; echo "$?" >"$OUT/\(name).status"
            """
    }
}
