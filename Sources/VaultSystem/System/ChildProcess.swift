import CVaultProcess
package import VaultSecureBytes
package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A program vault starts: the one way vault spawns a child and keeps it bounded (refresh
/// commands, age plugins, git for `vault git setup`); `vault exec`'s command is a ``Command``,
/// below. A program started by name is found with ``ProgramSearch``. `ChildProcessSourceTests`
/// fails when another source file spawns.
///
/// The child runs in a new, empty session keyring, so it cannot reach a file key vault cached
/// (``FileKeyCache``), and in a process group of its own, so that one that hangs is stopped with
/// all it started; it inherits no descriptor of vault's beyond those named here (libcurl leaves its
/// sockets open across exec); its standard output is a pipe vault reads.
package final class ChildProcess {
    /// What the child's standard input is.
    package enum Input {
        /// /dev/null.
        case null
        /// One end of a socket pair; vault writes to ``input`` with `MSG_NOSIGNAL`, so a child
        /// that exits early is an error to report, not a SIGPIPE that kills vault.
        case socket
    }

    /// The child's process id (and process group id).
    let pid: pid_t
    /// vault's end of the child's standard input (``Input/socket``), else -1.
    private var input: Int32
    /// vault's end of the child's standard output.
    private var output: Int32
    private var reaped = false {
        didSet { if reaped { CVaultProcess_releaseGroup(guardSlot) } }
    }
    /// While the child runs, SIGHUP, SIGINT or SIGTERM to vault, or vault's exit, kill its group
    /// (`CVaultProcess_guardGroup`): the terminal's Ctrl-C does not reach a group of its own.
    private let guardSlot: Int32

    /// Whether the child leads a process group of its own (stopped with all it started), or
    /// runs in vault's (``spawnInForeground(_:environment:)``: stopped alone).
    private let ownGroup: Bool

    private init(pid: pid_t, input: Int32, output: Int32, guardSlot: Int32, ownGroup: Bool = true) {
        self.pid = pid
        self.input = input
        self.output = output
        self.guardSlot = guardSlot
        self.ownGroup = ownGroup
    }

    deinit {
        stop()
    }

    /// Starts `path` with `arguments` (argv[0] first) and exactly `environment`; standard error
    /// is vault's when `keepErrorOutput`, else /dev/null. With `diesWithVault`, the kernel kills it
    /// when vault ends, even by SIGKILL (for a helper that serves vault alone, such as a private bus).
    package static func spawn(
        _ path: String, arguments: [String], environment: [String: String], input: Input, keepErrorOutput: Bool,
        diesWithVault: Bool = false
    ) throws(Errno) -> ChildProcess {
        var outputFds: [Int32] = [0, 0]
        guard pipe(&outputFds) == 0 else { throw Errno.current }
        var inputFds: [Int32] = [-1, -1]
        if input == .socket {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &inputFds) == 0
            else {
                let failure = Errno.current
                close(outputFds[0])
                close(outputFds[1])
                throw failure
            }
        }
        // No end may leak into another child; dup2 onto the child's 0 and 1 clears the flag there.
        for fd in outputFds + inputFds where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let spawned = forkInOwnKeyring(
            path, arguments: arguments, environment: environment,
            descriptors: (input == .socket ? inputFds[1] : -1, outputFds[1], keepErrorOutput ? 2 : -1),
            options: diesWithVault ? Int32(CVAULTPROCESS_SPAWN_DIE_WITH_PARENT) : 0)
        close(outputFds[1])
        if inputFds[1] >= 0 { close(inputFds[1]) }
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(outputFds[0])
            if inputFds[0] >= 0 { close(inputFds[0]) }
            throw error
        }
        // Released once the child is reaped: until then its pid, the group's, cannot be reused.
        // (A signal in the instant between the spawn and this call finds the group unguarded.)
        let guardSlot = CVaultProcess_guardGroup(pid)
        return ChildProcess(pid: pid, input: inputFds[0], output: outputFds[0], guardSlot: guardSlot)
    }

    /// Starts the user's `command` (searched in PATH as execvp(3) does, as a shell would) with
    /// `environment`, in the foreground: vault's standard input, output and error and vault's process
    /// group, so that the terminal's Ctrl-C reaches it and it may read the terminal; no other
    /// descriptor, and an empty session keyring, as every child. Not guarded: it is the user's, like
    /// a shell's job, and is waited for with ``wait(until:)``.
    package static func spawnInForeground(_ command: [String], environment: [String: String]) throws(Errno)
        -> ChildProcess
    {
        let spawned = forkInOwnKeyring(
            command[0], arguments: command, environment: environment, descriptors: (0, 1, 2),
            options: Int32(CVAULTPROCESS_SPAWN_SAME_GROUP | CVAULTPROCESS_SPAWN_SEARCH_PATH))
        switch spawned {
        case .success(let pid): return ChildProcess(pid: pid, input: -1, output: -1, guardSlot: -1, ownGroup: false)
        case .failure(let error): throw error
        }
    }

    /// Forks in C (posix_spawn cannot join a keyring in the child): a new, empty session keyring,
    /// so the child cannot reach a file key cached in vault's (docs/design.md).
    private static func forkInOwnKeyring(
        _ path: String, arguments: [String], environment: [String: String],
        descriptors: (input: Int32, output: Int32, error: Int32), options: Int32
    ) -> Result<pid_t, Errno> {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        return valueOrErrno(retryOnInterrupt: false) {
            CVaultProcess_spawnInOwnKeyring(
                path, argv, envp, descriptors.input, descriptors.output, descriptors.error, options)
        }
    }

    /// Writes all of `bytes` to the child's standard input; false if the child stopped reading
    /// (closed it or exited) or did not take them before `deadline`.
    package func write(_ bytes: UnsafeRawBufferPointer, until deadline: Deadline) -> Bool {
        var offset = 0
        while offset < bytes.count {
            var waiting = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
            guard
                case .success(let ready) = valueOrErrno({
                    poll(&waiting, 1, Int32(min(deadline.remainingMilliseconds, 60_000)))
                })
            else { return false }
            if ready == 0 {
                if deadline.hasPassed { return false }
                continue
            }
            let sent = valueOrErrno {
                send(input, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            switch sent {
            case .success(let count): offset += count
            case .failure(let error) where error.rawValue == EAGAIN: continue
            case .failure: return false
            }
        }
        return true
    }

    /// Reads what the child wrote to its standard output, at most `limit` bytes, waiting until
    /// `deadline`: `.bytes` (empty at the end of its output), or nil if the deadline passed first.
    package func read(limit: Int, until deadline: Deadline) -> SecureBytes? {
        var waiting = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = valueOrErrno { poll(&waiting, 1, Int32(min(deadline.remainingMilliseconds, 60_000))) }
            guard case .success(let count) = ready else { return SecureBytes() }
            if count > 0 { break }
            if deadline.hasPassed { return nil }
        }
        var chunk = SecureBytes(zeros: limit)
        guard
            case .success(let n) = valueOrErrno({
                chunk.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            }), n > 0
        else { return SecureBytes() }
        chunk.replaceSubrange(n..<chunk.count, with: EmptyCollection())
        return chunk
    }

    /// Closes vault's end of the child's standard input (the child sees the end of its input).
    package func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The child's wait status once it exits, or nil if `deadline` passes first: a child may
    /// close its output and keep running. A failure (ECHILD, when SIGCHLD is ignored and the
    /// kernel reaps children itself) tells nothing of how the child ended: never a success.
    package func wait(until deadline: Deadline) -> Result<Int32, Errno>? {
        guard !reaped else { return .failure(Errno(rawValue: ECHILD)) }
        var pause: UInt32 = 1_000
        while true {
            var status: Int32 = 0
            switch valueOrErrno({ waitpid(pid, &status, WNOHANG) }) {
            case .success(let found) where found == pid:
                reaped = true
                return .success(status)
            case .success: break
            case .failure(let errno):
                // Its pid may be free again, so its group is not signalled any more.
                reaped = true
                return .failure(errno)
            }
            if deadline.hasPassed { return nil }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }

    /// The child's wait status once it exits, however long it runs (the user's command): a
    /// blocking wait, retried when a signal interrupts it. Meanwhile SIGTERM and SIGHUP to vault
    /// go on to the child (`CVaultProcess_forwardSignals`); the forwarding stops once it has
    /// exited and before it is reaped, so that a signal never reaches a process that took its number.
    package func waitToEnd() -> Result<Int32, Errno> {
        guard !reaped else { return .failure(Errno(rawValue: ECHILD)) }
        _ = CVaultProcess_forwardSignals(pid)
        var exited = siginfo_t()
        let waited = valueOrErrno { waitid(P_PID, id_t(pid), &exited, WEXITED | WNOWAIT) }
        _ = CVaultProcess_forwardSignals(0)
        if case .failure(let error) = waited {
            reaped = true
            return .failure(error)
        }
        var status: Int32 = 0
        let result = valueOrErrno { waitpid(pid, &status, 0) }
        reaped = true
        return result.map { _ in status }
    }

    /// How a child that ran to its end (``runToEnd(outputLimit:until:)``) ended.
    package enum Outcome {
        /// It closed its output and exited with wait status `status`; `output` holds what it
        /// printed, unless it printed more than the limit (`overflow`, and `output` is cut short).
        case exited(status: Int32, output: SecureBytes, overflow: Bool)
        /// The deadline passed first; the child was stopped with all it started.
        case timedOut
        /// Waiting failed (ECHILD, when SIGCHLD is ignored and the kernel reaps children itself):
        /// how the child ended is unknown, so never a success.
        case waitFailed(Errno)
    }

    /// Reads the child's output to its end, keeping at most `outputLimit` bytes, and waits for it
    /// to exit, all before `deadline`; then stops it (its whole group) in every case.
    package func runToEnd(outputLimit: Int, until deadline: Deadline) -> Outcome {
        defer { stop() }
        var output = SecureBytes()
        var overflow = false
        var finished = false
        while let chunk = read(limit: 4096, until: deadline) {
            if chunk.isEmpty {
                finished = true
                break
            }
            // Read on to the end, so that the child is not blocked writing to a full pipe.
            if output.count + chunk.count > outputLimit { overflow = true } else { output.append(contentsOf: chunk) }
        }
        switch finished ? wait(until: deadline) : nil {
        case .success(let status): return .exited(status: status, output: output, overflow: overflow)
        case .failure(let errno): return .waitFailed(errno)
        case nil: return .timedOut
        }
    }

    /// Kills the child's whole process group (the child and whatever it started) unless it was
    /// reaped, reaps it, and closes vault's ends.
    package func stop() {
        closeInput()
        if output >= 0 { close(output) }
        output = -1
        guard !reaped else { return }
        kill(ownGroup ? -pid : pid, SIGKILL)
        _ = valueOrErrno { waitpid(pid, nil, 0) }
        reaped = true
    }
}

extension Int32 {
    /// How a wait status reads in a message: "exited with status 3", "was killed by signal 9".
    package var waitStatusText: String {
        self & 0x7F == 0 ? "exited with status \((self >> 8) & 0xFF)" : "was killed by signal \(self & 0x7F)"
    }
}

/// `vault exec`'s command: started in vault's process group (so that it keeps the terminal's
/// foreground and can read it) and, as every child, in a new, empty session keyring, with vault's
/// standard input; vault stays, passes signals on to it and waits for it.
package final class Command {
    /// The signals sent to vault that are passed on to the command.
    package static let forwardedSignals: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH]

    /// The command's process id.
    package let pid: Int32
    /// Readable once the command ended: its wait status (``status``). Owned by this object.
    package let endReport: Int32

    private init(pid: Int32, endReport: Int32) {
        self.pid = pid
        self.endReport = endReport
    }

    deinit { close(endReport) }

    /// Starts `arguments[0]` (searched in PATH when it has no '/', as execvp does) with
    /// `arguments` and exactly `environment` (NULL-terminated entries; the caller's); standard
    /// output and error are `output` and `errorOutput`, or vault's own for nil; the signals in
    /// `ignored` are ignored in it, every other one has its default disposition. From now on,
    /// ``forwardedSignals`` sent to vault by another process reach the command too.
    package static func start(
        _ arguments: [String], environment: [UnsafeMutablePointer<CChar>?], output: Int32?, errorOutput: Int32?,
        ignored: [Int32]
    ) throws(Errno) -> Command {
        let report = try pipeClosedOnExec()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        // The write end is the waiter thread's from here on, on every path.
        let started = valueOrErrno(retryOnInterrupt: false) {
            CVaultProcess_startCommand(
                arguments[0], argv, environment, output ?? -1, errorOutput ?? -1, ignored, Int32(ignored.count),
                forwardedSignals,
                Int32(forwardedSignals.count), report.write)
        }
        switch started {
        case .success(let pid): return Command(pid: pid, endReport: report.read)
        case .failure(let error):
            close(report.read)
            throw error
        }
    }

    /// A pipe whose ends are both close-on-exec (pipe2 is a GNU extension, hidden from Swift):
    /// vault exec is single-threaded while it makes them, so no other child can inherit them.
    package static func pipeClosedOnExec() throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Errno.current }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// The command's wait status once it ended, waiting for it (nil: waiting failed, how it
    /// ended is unknown).
    package func status() -> Int32? {
        var status: Int32 = 0
        let got = valueOrErrno { withUnsafeMutableBytes(of: &status) { Glibc.read(endReport, $0.baseAddress, 4) } }
        guard case .success(4) = got, status != -1 else { return nil }
        return status
    }
}
