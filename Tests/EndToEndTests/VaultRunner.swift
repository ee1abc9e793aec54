import Foundation
import Testing

/// Runs the built `vault` binary as a child process, as a user or a CI job would.
///
/// Standard input comes from a file and standard output and error go to files, so a child that
/// writes a lot can never block on a full pipe while the test waits for it.
struct VaultRunner {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A private directory for the test's vault files and HOME.
    let directory: URL
    /// The environment every run starts from (no inherited VAULT_* or D-Bus variables).
    var environment: [String: String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": directory.path,
            "VAULT_FILE": directory.appendingPathComponent("vault.age").path,
            "VAULT_SCRYPT_WORK_FACTOR": "10",
            "LANG": "C.UTF-8",
        ]
    }

    var vaultFile: String { environment["VAULT_FILE"]! }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The binary under test: `VAULT_BINARY` (set by `make test`), else the debug build.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["VAULT_BINARY"], !path.isEmpty { return path }
        var root = URL(fileURLWithPath: #filePath)
        while root.path != "/" {
            root.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { break }
        }
        return root.appendingPathComponent(".build/debug/vault").path
    }

    @discardableResult
    func run(
        _ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:], unset: [String] = []
    ) throws -> Result {
        try Self.run(Self.binary, arguments, stdin: stdin, environment: environment, extra: extra, unset: unset,
            scratch: directory)
    }

    /// Runs any program the same way (peers such as `age`).
    static func run(
        _ program: String, _ arguments: [String], stdin: [UInt8] = [], environment: [String: String],
        extra: [String: String] = [:], unset: [String] = [], scratch: URL
    ) throws -> Result {
        let id = UUID().uuidString
        let input = scratch.appendingPathComponent(".in-\(id)")
        let output = scratch.appendingPathComponent(".out-\(id)")
        let errors = scratch.appendingPathComponent(".err-\(id)")
        defer { for url in [input, output, errors] { try? FileManager.default.removeItem(at: url) } }
        try Data(stdin).write(to: input)
        FileManager.default.createFile(atPath: output.path, contents: nil)
        FileManager.default.createFile(atPath: errors.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var env = environment.merging(extra) { $1 }
        for name in unset { env.removeValue(forKey: name) }
        process.environment = env
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: [UInt8](try Data(contentsOf: output)),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self))
    }
}

extension VaultRunner.Result {
    /// Checks a failure: the status, nothing on stdout, and exactly one line on stderr.
    func expectFailure(_ status: Int32, _ fragment: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(stdout.isEmpty, "stdout should be empty", sourceLocation: sourceLocation)
        #expect(stderr.hasPrefix("vault: "), "stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(stderr.filter { $0 == "\n" }.count == 1, "one line on stderr: \(stderr)", sourceLocation: sourceLocation)
        if let fragment {
            #expect(stderr.contains(fragment), "stderr: \(stderr)", sourceLocation: sourceLocation)
        }
    }

    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "stderr: \(stderr)", sourceLocation: sourceLocation)
    }
}
