import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `--refresh-command` through `sh -c` and returns what it printed.
///
/// The command gets no secret: its argv is `sh -c CMD`, its standard input is /dev/null, its
/// environment is vault's without the variables that hold key material (see
/// ``TokenSettings/commandEnvironment``), and it inherits no descriptor of vault's beyond
/// standard error (libcurl leaves its sockets open across exec). Its standard error is vault's,
/// so its own messages reach the user unchanged.
///
/// It starts in a new, empty session keyring (``ChildProcess``), so it cannot reach a cached file
/// key. It runs in a process group of its own, so that one that hangs is killed with all it started
/// once `timeout` seconds (`VAULT_TIMEOUT`) have passed; and as the terminal's Ctrl-C and a
/// signal sent to vault alone do not reach that group, the group is guarded while it runs
/// (`CVaultProcess_guardGroup`): SIGHUP, SIGINT or SIGTERM to vault, or vault's exit, kill it.
enum RefreshCommand {
    /// The most a command may print, in bytes.
    static let outputLimit = 1 << 20

    static func run(_ command: String, environment: [String: String], name: SecretName, timeout: Double = 5)
        throws(VaultError) -> SecureBytes
    {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                "/bin/sh", arguments: ["sh", "-c", command], environment: environment, input: .null,
                keepErrorOutput: true)
        } catch {
            throw systemError("start the refresh command of '\(name.account)'", error)
        }
        switch child.runToEnd(outputLimit: outputLimit, until: Deadline(seconds: timeout)) {
        case .waitFailed(let errno):
            // ECHILD: `sh` was reaped by someone else (SIGCHLD ignored), so how it ended is
            // unknown: never a success.
            throw systemError("wait for the refresh command of '\(name.account)'", errno, code: .unavailable)
        case .timedOut:
            // Stopped with its whole group: `sh` and whatever it started.
            throw VaultError(
                .unavailable,
                "the refresh command of '\(name.account)' did not finish within \(formatSeconds(timeout)) s (VAULT_TIMEOUT); "
                    + "it was stopped")
        case .exited(let status, _, _) where status != 0:
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' \(status.waitStatusText)")
        case .exited(_, _, true):
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' printed more than 1 MiB")
        case .exited(_, let output, false):
            return output
        }
    }
}
