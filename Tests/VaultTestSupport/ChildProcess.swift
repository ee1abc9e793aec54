public import Foundation

#if canImport(Glibc)
    public import Glibc
#endif

/// A child process the test owns: started with ``spawnChild``, stdout and stderr to files (so no
/// pipe can fill up and block it), killed and reaped when released. The one way the tests run a
/// program: ``runTool`` runs one to completion; the hardening tests keep the object to kill the
/// child at chosen moments, watch it in /proc, race many of them, and bound every wait.
public final class ChildProcess {
    public let pid: pid_t
    private let directory: URL
    private var status: Int32?

    /// Starts `path` with `arguments`; stdin is `input` (a file), or `stdinPipe` when given.
    /// `environment` nil inherits this process's. With `ownGroup`, the child leads a new process
    /// group.
    public init(
        _ path: String, _ arguments: [String], environment: [String: String]?, input: [UInt8] = [],
        stdinPipe: Pipe? = nil, ownGroup: Bool = false
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
        do {
            pid = try spawnChild(
                path, arguments, environment: environment, input: stdin,
                output: directory.appendingPathComponent("stdout").path,
                errors: directory.appendingPathComponent("stderr").path, ownGroup: ownGroup)
        } catch {
            removeTemporaryDirectory(directory)
            throw error
        }
    }

    deinit {
        kill()
        removeTemporaryDirectory(directory)
    }

    /// What the child has written to stderr so far (it may still be running).
    public func stderrSoFar() -> String {
        let data = (try? Data(contentsOf: directory.appendingPathComponent("stderr"))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether the child has not exited yet (it is reaped if it has).
    public var isRunning: Bool { !waitForExit(0) }

    private func waitForExit(_ seconds: Double?) -> Bool {
        if status == nil { status = waitChild(pid, timeout: seconds) }
        return status != nil
    }

    /// Sends SIGKILL (whatever the child is doing) unless it has ended, and waits for it to end.
    public func kill() {
        // Only a child that has not been reaped: its pid cannot have been reused yet.
        if !waitForExit(0) { Glibc.kill(pid, SIGKILL) }
        _ = waitForExit(30)
    }

    /// Waits at most `seconds`; returns nil (after killing the child) if it has not ended by then.
    public func wait(seconds: Double) throws -> ToolResult? {
        guard waitForExit(seconds), let status else {
            kill()
            return nil
        }
        return try result(status: status)
    }

    /// Waits for the child to end, at most `timeout` seconds if given; a child still running then
    /// is stopped (``stopChild``: SIGTERM, then SIGKILL) and reported with status -1 and what it
    /// wrote so far.
    public func finish(timeout: Double?) throws -> ToolResult {
        if !waitForExit(timeout) {
            stopChild(pid)
            status = -1
        }
        return try result(status: status ?? -1)
    }

    private func result(status: Int32) throws -> ToolResult {
        ToolResult(
            status: status,
            stdout: [UInt8](try Data(contentsOf: directory.appendingPathComponent("stdout"))),
            stderr: String(decoding: try Data(contentsOf: directory.appendingPathComponent("stderr")), as: UTF8.self))
    }
}
