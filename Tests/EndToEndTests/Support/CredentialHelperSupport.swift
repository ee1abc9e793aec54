import Foundation
import Testing
import VaultTestSupport

/// A test fixture (a server, a built tool) that could not be set up, and why.
struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
}

extension VaultRunner {
    /// A scripted runner (file backend, its own identity) with the helpers installed.
    static func withHelpers() throws -> VaultRunner {
        var vault = try VaultRunner.scripted()
        try vault.installHelpers()
        return vault
    }

    /// Puts `git-credential-vault` and `docker-credential-vault` (links to the binary under test, as
    /// `make install` makes them) first on PATH, and keeps git away from the machine's settings.
    mutating func installHelpers() throws {
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for helper in ["git-credential-vault", "docker-credential-vault"] {
            try FileManager.default.createSymbolicLink(
                atPath: bin.appendingPathComponent(helper).path, withDestinationPath: Self.binary)
        }
        environment["PATH"] = bin.path + ":/usr/bin:/bin"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_TERMINAL_PROMPT"] = "0"
    }

    /// Runs `git` with this runner's environment.
    func git(_ arguments: [String], stdin: String = "") throws -> ToolResult {
        try runProgram("/usr/bin/git", arguments, stdin: Array(stdin.utf8))
    }

    /// Runs a helper through its link, as git and the container tools do.
    func helper(_ name: String, _ arguments: [String], stdin: String = "") throws -> ToolResult {
        try runProgram(path("bin/\(name)"), arguments, stdin: Array(stdin.utf8))
    }
}

/// A git server on 127.0.0.1 speaking smart HTTP (`git http-backend` run as CGI by a small
/// Python server) that demands Basic auth for `alice` / ``password``. Started once per test
/// process, on first use; stopped by PID when the process exits.
enum GitHTTPServer {
    static let user = "alice"
    static let password = "correct horse battery"

    struct Running {
        var url: String
        var port: UInt16
    }

    static let shared: Result<Running, any Error> = Result { try start() }

    static let script = #"""
        import base64, os, subprocess, sys
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        root, port, user, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self): self.serve()
            def do_POST(self): self.serve()
            def log_message(self, *args): pass

            def serve(self):
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                env = {"GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
                       "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_USER": user,
                       "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(body)),
                       "CONTENT_TYPE": self.headers.get("Content-Type", ""), "PATH": "/usr/bin:/bin",
                       "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                       "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
                separator = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
                head, _, payload = out.partition(separator)
                status, headers = 200, []
                for line in head.decode().splitlines():
                    key, _, value = line.partition(":")
                    if key.lower() == "status":
                        status = int(value.split()[0])
                    else:
                        headers.append((key, value.strip()))
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """#

    /// Makes `repo.git` (one commit, the file README holding "hello") and serves it.
    private static func start() throws -> Running {
        let root = try makeTemporaryDirectory()
        let work = root.appendingPathComponent("work").path
        let environment = ["PATH": "/usr/bin:/bin", "HOME": root.path, "GIT_CONFIG_NOSYSTEM": "1"]
        func git(_ arguments: [String]) throws {
            let result = try runTool("/usr/bin/git", arguments, environment: environment)
            guard result.status == 0 else { throw FixtureFailure(description: "git \(arguments): \(result.stderr)") }
        }
        try git(["init", "-q", "-b", "main", work])
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: work + "/README"))
        try git(["-C", work, "add", "README"])
        try git(["-C", work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"])
        try git(["clone", "-q", "--bare", work, root.appendingPathComponent("repo.git").path])
        let port = try freeLoopbackPort()
        let pid = try spawnChild(
            "/usr/bin/python3", ["-c", script, root.path, String(port), user, password], environment: environment,
            input: .null, output: "/dev/null", errors: "/dev/null")
        BackgroundProcesses.register(pid)
        guard waitForLoopbackPort(port, timeout: 20) else {
            throw FixtureFailure(description: "the git HTTP server did not listen on 127.0.0.1:\(port)")
        }
        return Running(url: "http://127.0.0.1:\(port)/repo.git", port: port)
    }
}
