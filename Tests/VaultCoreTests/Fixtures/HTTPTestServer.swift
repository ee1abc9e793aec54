import Foundation
import Testing
import VaultTestSupport

/// The Python server of Servers/http-test-server.py on 127.0.0.1, started once per test process.
struct HTTPTestServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// A port that accepts connections and never reads from them.
    let silentPort: UInt16

    private static let started = Result { () throws -> HTTPTestServer in try start() }

    /// The shared server; fails (or skips outside `make test`) when python3 is missing.
    static func shared() throws -> HTTPTestServer {
        try requireComponent(findExecutable("python3") == nil ? "python3 is not installed" : nil)
        return try started.get()
    }

    private static func start() throws -> HTTPTestServer {
        guard let root = packageRoot(), let python = findExecutable("python3") else {
            throw ServerStartError(description: "no package root or no python3")
        }
        let script = root.appendingPathComponent("Tests/VaultCoreTests/Servers/http-test-server.py").path
        let port = try freeLoopbackPort()
        let silent = try freeLoopbackPort()
        let pid = try spawnChild(
            python, [script, String(port), String(silent)], environment: nil,
            input: .null)
        BackgroundProcesses.register(pid)
        guard waitForLoopbackPort(port, timeout: 20), waitForLoopbackPort(silent, timeout: 20) else {
            throw ServerStartError(description: "the HTTP test server did not start listening on 127.0.0.1:\(port)")
        }
        return HTTPTestServer(base: "http://127.0.0.1:\(port)", silentPort: silent)
    }
}

/// A test server that did not start.
struct ServerStartError: Error, CustomStringConvertible {
    var description: String
}
