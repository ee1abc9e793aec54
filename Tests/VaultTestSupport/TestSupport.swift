public import Foundation
public import Testing

/// The package root: the nearest folder above this file (symlinks resolved) holding Package.swift.
public func packageRoot(file: String = #filePath) -> URL? {
    var directory = URL(fileURLWithPath: file).resolvingSymlinksInPath().deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            return directory
        }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// A fresh temporary folder named `<prefix>-<UUID>`, removed by the caller with
/// `removeTemporaryDirectory`: the one way the tests make one.
public func makeTemporaryDirectory(prefix: String = "vaultage") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

public func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

/// What a finished child process left behind.
public struct ToolResult: Sendable {
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Whether the program was stopped for running too long (the status of such a run).
    public var timedOut: Bool { status == -1 }

    public init(status: Int32, stdout: [UInt8], stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// This process's environment with `extra` laid over it, for a child that needs a few more
/// variables than the test process has (a private bus, a virtual environment).
public func inheritedEnvironment(adding extra: [String: String]) -> [String: String] {
    ProcessInfo.processInfo.environment.merging(extra) { $1 }
}

/// Runs a program to completion (a ``ChildProcess``): stdin from `input`, stdout and stderr on
/// files, so no pipe can fill up and deadlock. A program still running after `timeout` seconds is
/// stopped (`stopChild`), its status is -1, and the test records an issue that names it: a hang
/// fails its own test instead of holding the whole run until CI's limit. The default is far above
/// any program's run here, on the slowest machine. With `ownGroup`, it leads a new process group.
/// `environment` nil inherits this process's.
public func runTool(
    _ path: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
    timeout: Double = defaultToolTimeout, ownGroup: Bool = false,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) throws -> ToolResult {
    let result = try ChildProcess(path, arguments, environment: environment, input: input, ownGroup: ownGroup)
        .finish(timeout: timeout)
    if result.timedOut {
        Issue.record(
            "\(path) \(arguments.prefix(8)) did not finish within \(timeout) s; stderr: \(result.stderr)",
            sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    return result
}

/// How long ``runTool`` lets a program run unless told otherwise, in seconds.
public let defaultToolTimeout: Double = 600

/// Runs a Python snippet over files made from `inputs`: each input is written to a file, the
/// snippet gets their paths as arguments and writes `PATH.out` for each. One run for all inputs keeps
/// the cost of starting Python and of hashing megabytes in a debug build low.
public func pythonMapFiles(_ snippet: String, _ inputs: [String: [UInt8]]) throws -> [String: [UInt8]] {
    guard !inputs.isEmpty else { return [:] }
    let directory = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(directory) }
    var arguments = ["-c", "import sys\nfor p in sys.argv[1:]:\n  d = open(p, 'rb').read()\n  " + snippet]
    for (name, data) in inputs {
        let url = directory.appendingPathComponent(name)
        try Data(data).write(to: url)
        arguments.append(url.path)
    }
    let result = try runTool("/usr/bin/python3", arguments)
    guard result.status == 0 else { throw PythonError(message: result.stderr) }
    var outputs: [String: [UInt8]] = [:]
    for name in inputs.keys {
        outputs[name] = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name + ".out")))
    }
    return outputs
}

public struct PythonError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { "python3 failed: \(message)" }
}

/// zlib-inflates each input.
public func inflateAll(_ inputs: [String: [UInt8]]) throws -> [String: [UInt8]] {
    try pythonMapFiles("import zlib; open(p + '.out', 'wb').write(zlib.decompress(d))", inputs)
}

/// The lowercase hex SHA-256 of each input.
public func sha256HexAll(_ inputs: [String: [UInt8]]) throws -> [String: String] {
    try pythonMapFiles("import hashlib; open(p + '.out', 'w').write(hashlib.sha256(d).hexdigest())", inputs)
        .mapValues { String(decoding: $0, as: UTF8.self) }
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
public func patternBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// Drives a program on a pseudo-terminal, answering every passphrase prompt it prints.
///
/// age reads passphrases only from /dev/tty, so it cannot be fed through stdin. Arguments: the
/// passphrase, then the program and its arguments. Exits with the program's status and echoes what
/// the program wrote to the terminal on stderr.
let ptyDriver = """
    import os, pty, re, signal, sys
    signal.alarm(120)
    passphrase = sys.argv[1].encode()
    pattern = sys.argv[2].encode()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[3], sys.argv[3:])
    seen, answered = b"", 0
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
        prompts = len(re.findall(pattern, seen))
        while answered < prompts:
            os.write(fd, passphrase + b"\\n")
            answered += 1
    _, status = os.waitpid(pid, 0)
    sys.stderr.write(seen.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))
    """

/// Runs a program on a pseudo-terminal (through python3's pty module), typing `passphrase` and
/// a newline at every prompt it prints that matches `prompt` (a Python regular expression; by
/// default a passphrase prompt).
public func runOnTerminal(
    typing passphrase: String, at prompt: String = "[Pp]assphrase[^\\n]*: ", _ program: String,
    _ arguments: [String], environment: [String: String]? = nil
) throws -> ToolResult {
    try runTool(
        "/usr/bin/python3", ["-c", ptyDriver, passphrase, prompt, program] + arguments, environment: environment)
}
