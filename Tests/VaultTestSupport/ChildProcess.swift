public import Foundation

#if canImport(Glibc)
    public import Glibc
#endif

/// A process started without waiting for it, on `spawnChild`: the hardening tests kill it at
/// chosen moments, watch it in /proc, race many of them, and bound every wait by a deadline.
///
/// stdout and stderr go to files, so no pipe can fill up and block the child.
public final class ChildProcess {
    public let pid: pid_t
    private let directory: URL
    private var status: Int32?

    /// Starts `path` with `arguments`; stdin is `input` (a file), or `stdinPipe` when given.
    public init(
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

    /// Whether the child has not exited yet (it is reaped if it has).
    public var isRunning: Bool { !waitForExit(0) }

    private func waitForExit(_ seconds: Double) -> Bool {
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
        return ToolResult(
            status: status,
            stdout: [UInt8](try Data(contentsOf: directory.appendingPathComponent("stdout"))),
            stderr: String(decoding: try Data(contentsOf: directory.appendingPathComponent("stderr")), as: UTF8.self))
    }
}
