import Foundation

/// Whether the tests run in CI, where missing tools and data are failures rather than skips.
let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

/// The package root: the nearest folder above this file (symlinks resolved) holding Package.swift.
func packageRoot(file: String = #filePath) -> URL? {
    var directory = URL(fileURLWithPath: file).resolvingSymlinksInPath().deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            return directory
        }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// A fresh temporary folder, removed by the caller with `removeTemporaryDirectory`.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vaultage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

/// What a finished child process left behind.
struct ToolResult {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
}

/// Runs a program with stdin, stdout and stderr on files, so no pipe can fill up and deadlock.
func runTool(_ path: String, _ arguments: [String], input: [UInt8] = []) throws -> ToolResult {
    let directory = try makeTemporaryDirectory()
    defer { removeTemporaryDirectory(directory) }
    let inputURL = directory.appendingPathComponent("stdin")
    let outputURL = directory.appendingPathComponent("stdout")
    let errorURL = directory.appendingPathComponent("stderr")
    try Data(input).write(to: inputURL)
    try Data().write(to: outputURL)
    try Data().write(to: errorURL)
    let stdin = try FileHandle(forReadingFrom: inputURL)
    let stdout = try FileHandle(forWritingTo: outputURL)
    let stderr = try FileHandle(forWritingTo: errorURL)
    defer {
        try? stdin.close()
        try? stdout.close()
        try? stderr.close()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    process.waitUntilExit()
    return ToolResult(
        status: process.terminationStatus,
        stdout: [UInt8](try Data(contentsOf: outputURL)),
        stderr: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
}

/// Runs a Python snippet over files made from `inputs`: each input is written to a file, the
/// snippet gets their paths as arguments and writes `PATH.out` for each. One run for all inputs keeps
/// the cost of starting Python and of hashing megabytes in a debug build low.
func pythonMapFiles(_ snippet: String, _ inputs: [String: [UInt8]]) throws -> [String: [UInt8]] {
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

struct PythonError: Error, CustomStringConvertible {
    var message: String
    var description: String { "python3 failed: \(message)" }
}

/// zlib-inflates each input.
func inflateAll(_ inputs: [String: [UInt8]]) throws -> [String: [UInt8]] {
    try pythonMapFiles("import zlib; open(p + '.out', 'wb').write(zlib.decompress(d))", inputs)
}

/// The lowercase hex SHA-256 of each input.
func sha256HexAll(_ inputs: [String: [UInt8]]) throws -> [String: String] {
    try pythonMapFiles("import hashlib; open(p + '.out', 'w').write(hashlib.sha256(d).hexdigest())", inputs)
        .mapValues { String(decoding: $0, as: UTF8.self) }
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
func patternBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}
