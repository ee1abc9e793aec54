import VaultAge

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
/// It runs in a process group of its own, so that one that hangs is killed with all it started
/// once `timeout` seconds (`VAULT_TIMEOUT`) have passed.
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
        guard finished, let status = child.wait(until: deadline) else {
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
