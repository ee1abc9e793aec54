import Foundation
import Testing
import VaultAge
import VaultTestSupport

extension VaultRunner {
    /// A runner with its own identity and its own service, so that a test sees only the secrets
    /// it made even in a store shared with other tests (a keyring, for VAULT_BACKEND=secret-service).
    static func scripted() throws -> VaultRunner {
        var vault = try VaultRunner()
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        vault.environment["VAULT_SERVICE"] = "e2e-\(UUID().uuidString.prefix(8).lowercased())"
        return vault
    }

    var service: String { environment["VAULT_SERVICE"]! }

    /// Stores a value; the test fails if vault does not exit 0.
    func set(
        _ name: String, _ value: [UInt8], _ options: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        // An empty value is stored only when asked for (`set` refuses it otherwise).
        let allowEmpty = value.isEmpty ? ["--allow-empty"] : []
        try run(["set", name] + options + allowEmpty, stdin: value).expectSuccess(sourceLocation: sourceLocation)
    }

    func set(
        _ name: String, _ text: String, _ options: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        try set(name, Array(text.utf8), options, sourceLocation: sourceLocation)
    }

    /// Runs another program with this runner's environment (plus `extra`).
    func runProgram(_ program: String, _ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:])
        throws -> ToolResult
    {
        try runTool(program, arguments, input: stdin, environment: environment.merging(extra) { $1 })
    }

    /// The directory of the binary under test, to put on PATH for scripts that call `vault`.
    static var binaryDirectory: String { URL(fileURLWithPath: binary).deletingLastPathComponent().path }

    /// The repository root (where Package.swift is).
    static var packageRoot: URL { VaultTestSupport.packageRoot() ?? URL(fileURLWithPath: ".") }

    /// The full path of a program in the runner's PATH directories, or nil (``findExecutable(_:in:)``).
    static func which(_ program: String) -> String? {
        findExecutable(program, in: ["/usr/local/bin", "/usr/bin", "/bin"])
    }
}

/// An RFC 3339 time `seconds` from now, for --expires-at.
func rfc3339(fromNow seconds: TimeInterval) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: Date().addingTimeInterval(seconds))
}
