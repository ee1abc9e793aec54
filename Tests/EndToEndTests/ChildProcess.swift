import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `vault` (or other) process started without waiting for it: the hardening tests kill it at
/// chosen moments, watch it in /proc, race many of them, and bound every wait by a deadline.
///
/// stdout and stderr go to files, so no pipe can fill up and block the child.
final class ChildProcess {
    let pid: pid_t
    private let directory: URL
    private var status: Int32?

    /// Starts `path` with `arguments`; stdin is `input` (a file), or `stdinPipe` when given.
    init(
        _ path: String, _ arguments: [String], environment: [String: String], input: [UInt8] = [],
        stdinPipe: Pipe? = nil
    ) throws {
        directory = try makeTemporaryDirectory()
        let stdin: ChildInput
        if let stdinPipe {
            stdin = .pipe(
                read: stdinPipe.fileHandleForReading.fileDescriptor,
                closeInChild: stdinPipe.fileHandleForWriting.fileDescriptor)
        } else {
            let file = directory.appendingPathComponent("stdin")
            try Data(input).write(to: file)
            stdin = .file(file.path)
        }
        pid = try spawnChild(
            path, arguments, environment: environment, input: stdin,
            output: directory.appendingPathComponent("stdout").path,
            errors: directory.appendingPathComponent("stderr").path)
    }

    deinit {
        kill()
        removeTemporaryDirectory(directory)
    }

    /// What the child has written to stderr so far (it may still be running).
    func stderrSoFar() -> String {
        let data = (try? Data(contentsOf: directory.appendingPathComponent("stderr"))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether the child has not exited yet (it is reaped if it has).
    var isRunning: Bool { !waitForExit(0) }

    private func waitForExit(_ seconds: Double) -> Bool {
        if status == nil { status = waitChild(pid, timeout: seconds) }
        return status != nil
    }

    /// Sends SIGKILL (whatever the child is doing) unless it has ended, and waits for it to end.
    func kill() {
        // Only a child that has not been reaped: its pid cannot have been reused yet.
        if !waitForExit(0) { Glibc.kill(pid, SIGKILL) }
        _ = waitForExit(30)
    }

    /// Waits at most `seconds`; returns nil (after killing the child) if it has not ended by then.
    func wait(seconds: Double) throws -> ToolResult? {
        guard waitForExit(seconds), let status else {
            kill()
            return nil
        }
        return ToolResult(
            status: status,
            stdout: [UInt8](try Data(contentsOf: directory.appendingPathComponent("stdout"))),
            stderr: String(decoding: try Data(contentsOf: directory.appendingPathComponent("stderr")), as: UTF8.self))
    }
}

extension VaultRunner {
    /// Runs vault like `run`, but fails the test instead of hanging if it takes over `seconds`.
    func run(
        _ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:], timeout seconds: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ToolResult {
        let child = try start(arguments, stdin: stdin, env: extra)
        guard let result = try child.wait(seconds: seconds) else {
            Issue.record("vault \(arguments) did not finish within \(seconds) s", sourceLocation: sourceLocation)
            return ToolResult(status: -1, stdout: [], stderr: "timed out")
        }
        return result
    }

    /// Starts vault without waiting for it.
    func start(_ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:], stdinPipe: Pipe? = nil)
        throws -> ChildProcess
    {
        try ChildProcess(
            Self.binary, arguments, environment: environment.merging(extra) { $1 }, input: stdin, stdinPipe: stdinPipe)
    }

    /// The vault file's bytes, or nil if it does not exist.
    func fileBytes(_ path: String? = nil) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: path ?? vaultFile))).map { [UInt8]($0) }
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
///
/// Swift concurrency's pool has one thread per core, and a test that blocks it in `waitUntilExit`
/// would run only two vault processes at a time on two cores; plain threads really race.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

/// A mode as `ls -l` shows it, for messages.
func modeString(_ mode: Int) -> String { String(mode, radix: 8) }

/// The permission bits of a file (nil if it is missing).
func permissions(_ path: String) -> Int? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return Int(st.st_mode & 0o7777)
}

/// Runs vault as an unprivileged user: `nobody` through setpriv when the tests run as root (the
/// binary is copied where `nobody` can reach it), else the current user.
struct Unprivileged {
    let directory: URL
    /// The program to start and the arguments that come before vault's own.
    let program: String
    let prefix: [String]
    /// The user id vault runs as.
    let uid: UInt32

    init() throws {
        directory = try makeTemporaryDirectory()
        guard geteuid() == 0 else {
            (program, prefix, uid) = (VaultRunner.binary, [], geteuid())
            return
        }
        let copy = directory.appendingPathComponent("vault").path
        try FileManager.default.copyItem(atPath: VaultRunner.binary, toPath: copy)
        chmod(directory.path, 0o755)
        chmod(copy, 0o755)
        program = "/usr/bin/setpriv"
        prefix = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", copy]
        uid = 65534
    }

    /// Whether the tests can run vault as another user here.
    static var available: Bool { geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    /// A runner for another user, or nil where none can be made (a failure in CI, which has setpriv).
    static func make() throws -> Unprivileged? {
        guard available else {
            if isCI { Issue.record("setpriv is required in CI") }
            return nil
        }
        return try Unprivileged()
    }

    func cleanUp() { removeTemporaryDirectory(directory) }
}
