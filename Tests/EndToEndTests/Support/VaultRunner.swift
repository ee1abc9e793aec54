import Foundation
import Testing
import VaultTestSupport

/// Runs the built `vault` binary as a child process, as a user or a CI job would, in a private
/// directory with a clean environment (no inherited VAULT_* or D-Bus variables).
struct VaultRunner {
    /// A private directory for the test's vault files and HOME.
    let directory: URL
    /// The environment every run starts from (no inherited VAULT_* or D-Bus variables).
    var environment: [String: String]

    init() throws {
        directory = try makeTemporaryDirectory(prefix: "vault-e2e")
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": directory.path,
            "VAULT_FILE": directory.appendingPathComponent("vault.age").path,
            "VAULT_SCRYPT_WORK_FACTOR": "10",
            "LANG": "C.UTF-8",
            // A passphrase typed at a test's terminal is not left in the test process's kernel
            // keyring, where the next run on the file would find it; UnlockTests test the cache
            // in keyrings of their own (KeyringSandbox).
            "VAULT_UNLOCK_TTL": "0",
        ]
    }

    var vaultFile: String { environment["VAULT_FILE"]! }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The binary under test: `VAULT_BINARY` (set by `make test`), else the debug build.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["VAULT_BINARY"], !path.isEmpty { return path }
        return Self.packageRoot.appendingPathComponent(".build/debug/vault").path
    }

    /// Runs vault to completion; one still running after `timeout` seconds is stopped and fails
    /// the test (``runTool``).
    @discardableResult
    func run(
        _ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:], unset: [String] = [],
        timeout: Double = defaultToolTimeout, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ToolResult {
        var env = environment.merging(extra) { $1 }
        for name in unset { env.removeValue(forKey: name) }
        return try runTool(
            Self.binary, arguments, input: stdin, environment: env, timeout: timeout, fileID: sourceLocation.fileID,
            filePath: sourceLocation.filePath, line: sourceLocation.line, column: sourceLocation.column)
    }
}

extension ToolResult {
    /// Checks a failure: the status, nothing on stdout, and exactly one line on stderr.
    func expectFailure(_ status: Int32, _ fragment: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(stdout.isEmpty, "stdout should be empty", sourceLocation: sourceLocation)
        #expect(stderr.hasPrefix("vault: "), "stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(
            stderr.filter { $0 == "\n" }.count == 1, "one line on stderr: \(stderr)", sourceLocation: sourceLocation)
        if let fragment {
            #expect(stderr.contains(fragment), "stderr: \(stderr)", sourceLocation: sourceLocation)
        }
    }

    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "stderr: \(stderr)", sourceLocation: sourceLocation)
    }
}
