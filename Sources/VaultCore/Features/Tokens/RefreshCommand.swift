import VaultSecureBytes

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
        let deadline = Deadline(seconds: timeout)
        var output = SecureBytes()
        var overflow = false
        var finished = false
        while let chunk = child.read(limit: 4096, until: deadline) {
            if chunk.isEmpty {
                finished = true
                break
            }
            if output.count + chunk.count > outputLimit { overflow = true } else { output.append(contentsOf: chunk) }
        }
        let waited = finished ? child.wait(until: deadline) : nil
        if case .failure(let errno) = waited {
            // ECHILD: `sh` was reaped by someone else (SIGCHLD ignored), so how it ended is
            // unknown: never a success.
            child.stop()
            throw systemError("wait for the refresh command of '\(name.account)'", errno, code: .unavailable)
        }
        guard case .success(let status) = waited else {
            child.stop()  // the whole group: `sh` and whatever it started
            throw VaultError(
                .unavailable,
                "the refresh command of '\(name.account)' did not finish within \(formatSeconds(timeout)) s (VAULT_TIMEOUT); "
                    + "it was stopped")
        }
        child.stop()
        guard status == 0 else {
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' \(status.waitStatusText)")
        }
        if overflow {
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' printed more than 1 MiB")
        }
        return output
    }
}
