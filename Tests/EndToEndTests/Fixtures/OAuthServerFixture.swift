import Foundation
import Testing
import VaultTestSupport

/// The Authlib OAuth 2.0 server of Tests/OAuthServer/server.py, on 127.0.0.1, started once per
/// test process (the first test that needs it) and stopped by PID when the process exits.
///
/// Access tokens live ``lifetime`` seconds; refresh tokens rotate and a reused one revokes its
/// family. The server counts token-endpoint requests; tests read the counts, never guess.
struct OAuthServer: Sendable {
    let port: UInt16
    /// Access-token lifetime, in seconds.
    static let lifetime = 3

    var base: String { "http://127.0.0.1:\(port)" }
    var tokenURL: String { base + "/token" }
    var deviceURL: String { base + "/device_authorization" }

    private static let started = Result { () throws -> OAuthServer in try start() }

    /// The Python of the test virtual environment, if it has Authlib and Flask.
    private static let python: String? = {
        guard let venv = testVirtualEnvironment(), FileManager.default.isExecutableFile(atPath: venv + "/bin/python"),
            let probe = try? runTool(
                venv + "/bin/python", ["-c", "import authlib, flask"], input: [], environment: [:]),
            probe.status == 0
        else { return nil }
        return venv + "/bin/python"
    }()

    /// The shared server; a missing Authlib fails under `make test` and skips elsewhere.
    static func shared() throws -> OAuthServer {
        try requireComponent(
            python == nil ? "no test virtual environment with authlib and flask (make test-venv)" : nil)
        return try started.get()
    }

    private static func start() throws -> OAuthServer {
        guard let python else { throw OAuthServerError(description: "no Python with authlib and flask") }
        let port = try freeLoopbackPort()
        let script = VaultRunner.packageRoot.appendingPathComponent("Tests/OAuthServer/server.py").path
        let pid = try spawnChild(
            python, [script, String(port), String(lifetime)], environment: ["PATH": "/usr/bin:/bin"], input: .null)
        BackgroundProcesses.register(pid)
        guard waitForLoopbackPort(port, timeout: 30) else {
            throw OAuthServerError(description: "the OAuth server did not listen on 127.0.0.1:\(port) within 30 s")
        }
        return OAuthServer(port: port)
    }

    /// POSTs a form to a test route with curl and returns the body.
    @discardableResult
    func post(_ path: String, _ fields: [String: String]) throws -> Data {
        let arguments =
            ["-s", "-f", "--max-time", "30", "-X", "POST"]
            + fields.flatMap { ["--data-urlencode", "\($0.key)=\($0.value)"] } + [
                base + path
            ]
        let result = try runTool("/usr/bin/curl", arguments, input: [], environment: [:])
        guard result.status == 0 else {
            throw OAuthServerError(description: "curl \(path): \(result.status) \(result.stderr)")
        }
        return Data(result.stdout)
    }

    /// The server's counters: token_requests, refresh_requests, polls, device_requests, revoked_families.
    func stats() throws -> [String: Int] {
        let result = try runTool(
            "/usr/bin/curl", ["-s", "-f", "--max-time", "30", base + "/test/stats"], input: [], environment: [:])
        return (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Int]) ?? [:]
    }

    /// A token response for a new login (a new token family), as `vault oauth import` reads it;
    /// with `expiresIn` 0 the access token is due at once.
    func issue(client: String = "public-cli", scope: String = "repo", expiresIn: Int? = nil) throws -> [UInt8] {
        var fields = ["client_id": client, "scope": scope]
        if let expiresIn { fields["expires_in"] = String(expiresIn) }
        return [UInt8](try post("/test/issue", fields))
    }
}

/// The OAuth test server did not start or did not answer.
struct OAuthServerError: Error, CustomStringConvertible {
    var description: String
}
