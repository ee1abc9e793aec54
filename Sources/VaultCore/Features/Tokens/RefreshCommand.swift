import CVaultProcess
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
/// once `timeout` seconds (`VAULT_TIMEOUT`) have passed; and as the terminal's Ctrl-C and a
/// signal sent to vault alone do not reach that group, the group is guarded while it runs
/// (`CVaultProcess_guardGroup`): SIGHUP, SIGINT or SIGTERM to vault, or vault's exit, kill it.
enum RefreshCommand {
    /// The most a command may print, in bytes.
    static let outputLimit = 1 << 20

    static func run(_ command: String, environment: [String: String], name: SecretName, timeout: Double = 5)
        throws(VaultError) -> SecureBytes
    {
        var fds: [Int32] = [0, 0]
        try syscall("create a pipe for the refresh command") { pipe(&fds) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Neither end may leak into another child; dup2 onto the command's stdout clears the flag there.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        _ = CVaultProcess_addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let words: [String] = ["sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        // The command starts in a new, empty session keyring (and so does the rest of this
        // process, which has opened its file already): it must not reach a cached file key.
        FileKeyCache.isolateChildren()
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw systemError("start the refresh command of '\(name.account)'", Errno(rawValue: spawned))
        }
        // Released only once `sh` is reaped: until then its pid, the group's, cannot be reused.
        // (A signal in the instant between the spawn and this call finds the group unguarded.)
        let guardSlot = CVaultProcess_guardGroup(pid)
        defer { CVaultProcess_releaseGroup(guardSlot) }
        let deadline = Deadline(seconds: timeout)
        var output = SecureBytes()
        var overflow = false
        let finished = read(readEnd, into: &output, overflow: &overflow, until: deadline)
        close(readEnd)
        let waited = finished ? wait(for: pid, until: deadline) : nil
        if case .failure(let errno) = waited {
            // ECHILD: `sh` was reaped by someone else (SIGCHLD ignored), so how it ended is
            // unknown: never a success. Its pid is free again, so its group is not signalled.
            throw systemError("wait for the refresh command of '\(name.account)'", errno, code: .unavailable)
        }
        guard case .success(let status) = waited else {
            kill(-pid, SIGKILL)  // the whole group: `sh` and whatever it started
            _ = valueOrErrno { waitpid(pid, nil, 0) }
            throw VaultError(
                .unavailable,
                "the refresh command of '\(name.account)' did not finish within \(formatSeconds(timeout)) s (VAULT_TIMEOUT); "
                    + "it was stopped")
        }
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            let how = exited ? "exited with status \(code)" : "was killed by signal \(status & 0x7F)"
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' \(how)")
        }
        if overflow {
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' printed more than 1 MiB")
        }
        return output
    }

    /// Reads `fd` to its end into `output` (past ``outputLimit``, sets `overflow` and keeps
    /// reading); false if the deadline passes first.
    private static func read(
        _ fd: Int32, into output: inout SecureBytes, overflow: inout Bool, until deadline: Deadline
    ) -> Bool {
        var chunk = SecureBytes(zeros: 4096)
        while true {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = valueOrErrno { poll(&waiting, 1, Int32(min(deadline.remainingMilliseconds, 60_000))) }
            guard case .success(let count) = ready else { return true }
            if count == 0 {
                if deadline.hasPassed { return false }
                continue
            }
            guard
                case .success(let n) = valueOrErrno({
                    chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                }),
                n > 0
            else { return true }
            if output.count + n > outputLimit {
                overflow = true
            } else {
                chunk.withUnsafeBytes { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            }
        }
    }

    /// The wait status of `pid` once it exits, or nil if the deadline passes first: a command
    /// may close its output and keep running. A failure (ECHILD, when SIGCHLD is ignored and the
    /// kernel reaps children itself) is returned: it tells nothing of how the command ended.
    private static func wait(for pid: pid_t, until deadline: Deadline) -> Result<Int32, Errno>? {
        var pause: UInt32 = 1_000
        while true {
            var status: Int32 = 0
            switch valueOrErrno({ waitpid(pid, &status, WNOHANG) }) {
            case .success(let reaped) where reaped == pid: return .success(status)
            case .success: break
            case .failure(let errno): return .failure(errno)
            }
            if deadline.hasPassed { return nil }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }
}
