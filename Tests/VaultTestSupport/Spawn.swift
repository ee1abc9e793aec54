import CVaultTestSupport
public import Foundation

#if canImport(Glibc)
    public import Glibc
#endif

// The tests start their child processes with posix_spawn, not Foundation's `Process`: on Linux,
// `Process.run()` of Swift 6.3.1 crashes intermittently (a 256-byte over-read of `d_name` in
// findMaximumOpenFromProcSelfFD, fixed upstream in swift-corelibs-foundation PR #5472), and these
// suites start thousands of children, many at once.

/// Where a spawned child's standard input comes from.
public enum ChildInput: Sendable {
    /// The file at this path.
    case file(String)
    /// The read end of a pipe; `closeInChild` (the write end) is closed in the child.
    case pipe(read: Int32, closeInChild: Int32)
    /// /dev/null.
    case null
}

/// Starts `executable` with `arguments`, stdin from `input`, stdout and stderr to files (or
/// /dev/null), signals unblocked and at their defaults. `environment` nil inherits this process's.
/// With `ownGroup`, the child leads a new process group.
public func spawnChild(
    _ executable: String, _ arguments: [String], environment: [String: String]?, input: ChildInput,
    output: String = "/dev/null", errors: String = "/dev/null", ownGroup: Bool = false
) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    switch input {
    case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
    case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    case .pipe(let read, let writeEnd):
        posix_spawn_file_actions_adddup2(&actions, read, 0)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
    }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    // Like Foundation's Process, the child gets no other descriptor of ours: one leaked write
    // descriptor on an executable (a test copying the binary) makes exec fail with ETXTBSY.
    CVaultTestSupport_addCloseFrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    var all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if ownGroup {
        posix_spawnattr_setpgroup(&attributes, 0)
        flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: Int32 = 0
    let status: Int32
    if let environment {
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    } else {
        status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }
    guard status == 0 else {
        throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(status)))")
    }
    return pid
}

/// Why a child could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
}

/// Waits for `pid` to exit, at most `timeout` seconds if given. Returns its exit status (128 +
/// the signal for a child killed by one), or nil if it is still running at the deadline.
public func waitChild(_ pid: Int32, timeout: Double? = nil) -> Int32? {
    let deadline = timeout.map { Date().addingTimeInterval($0) }
    var status: Int32 = 0
    while true {
        let reaped = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
        if reaped == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
        if reaped < 0 && errno != EINTR { return -1 }
        if let deadline, Date() >= deadline { return nil }
        if deadline != nil { usleep(2_000) }
    }
}

/// Stops a child: SIGTERM, then SIGKILL if it has not exited within a few seconds.
public func stopChild(_ pid: Int32) {
    kill(pid, SIGTERM)
    if waitChild(pid, timeout: 5) == nil {
        kill(pid, SIGKILL)
        _ = waitChild(pid, timeout: 5)
    }
}
