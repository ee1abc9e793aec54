import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultStorage
@testable import VaultSystem

/// The HTTP layer against a real server on 127.0.0.1 (Servers/http-test-server.py).
@Suite("HTTP client")
struct HTTPClientTests {
    let client = HTTPClient()

    func send(_ request: HTTPRequest, seconds: Double = 10, client: HTTPClient? = nil) throws(HTTPError)
        -> HTTPResponse
    {
        try (client ?? self.client).send(request, deadline: Deadline(seconds: seconds))
    }

    @Test("a GET returns status, headers and body, and sends the request's headers")
    func get() throws {
        let server = try HTTPTestServer.shared()
        let response = try send(
            HTTPRequest(method: "GET", url: server.base + "/echo/a?b=c", headers: [("X-Custom", "one two")]))
        #expect(response.status == 200)
        #expect(response.isSuccess)
        #expect(response.header("x-test-server") == "vault")
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.server == server.base)
        let json = try response.json()
        #expect(json["method"]?.string == "GET")
        #expect(json["path"]?.string == "/echo/a?b=c")
        #expect(json["headers"]?["x-custom"]?.string == "one two")
    }

    @Test("one client's requests share a kept-alive connection, and none inherits the last one's options")
    func connectionReuse() throws {
        let server = try HTTPTestServer.shared()
        let post = try send(.json("PUT", server.base + "/echo/first", .object([("a", .string([1]))]))).json()
        let get = try send(HTTPRequest(method: "GET", url: server.base + "/echo/second")).json()
        #expect(get["method"]?.string == "GET")
        #expect(get["headers"]?["content-type"] == nil)
        #expect(get["body_base64"]?.string == "")
        let port = try #require(post["client_port"]?.integer)
        #expect(get["client_port"]?.integer == port, "the second request reused the first one's connection")
        let other = try send(HTTPRequest(method: "GET", url: server.base + "/echo/third"), client: HTTPClient()).json()
        #expect(other["client_port"]?.integer != port, "another client has a connection of its own")
    }

    @Test("a form POST is url-encoded, byte for byte")
    func formPost() throws {
        let server = try HTTPTestServer.shared()
        let response = try send(
            .form(server.base + "/echo/token", [("grant_type", "refresh_token"), ("x", "a b&c=d/é+*~")]))
        let json = try response.json()
        #expect(json["method"]?.string == "POST")
        #expect(json["headers"]?["content-type"]?.string == "application/x-www-form-urlencoded")
        let body = try #require(json["body_base64"]?.string.flatMap { Data(base64Encoded: $0) })
        #expect(String(decoding: body, as: UTF8.self) == "grant_type=refresh_token&x=a+b%26c%3Dd%2F%C3%A9%2B*%7E")
    }

    @Test("PUT, DELETE and LIST with a JSON body keep the method and every byte of the body")
    func methodsAndBinaryBodies() throws {
        let server = try HTTPTestServer.shared()
        let value: [UInt8] = [0, 1, 0x22, 0x5C, 0x0A, 0xC3, 0xA9]
        for method in ["PUT", "DELETE", "LIST", "POST"] {
            let body = JSONValue.object([("data", .string(value)), ("n", .number("3")), ("t", .bool(true))])
            let json = try send(.json(method, server.base + "/echo/m", body)).json()
            #expect(json["method"]?.string == method)
            let sent = try #require(json["body_base64"]?.string.flatMap { Data(base64Encoded: $0) })
            #expect(try JSONValue.parse(Array(sent)) == body)
        }
        let empty = try send(HTTPRequest(method: "POST", url: server.base + "/echo/e", body: [])).json()
        #expect(empty["headers"]?["content-length"]?.string == "0")
    }

    @Test("a binary response body arrives byte for byte")
    func binaryResponse() throws {
        let server = try HTTPTestServer.shared()
        let response = try send(HTTPRequest(method: "GET", url: server.base + "/bytes/70000"))
        #expect(response.body == (0..<70000).map { UInt8($0 % 256) })
    }

    @Test("redirects are returned, not followed; error statuses are responses")
    func noRedirects() throws {
        let server = try HTTPTestServer.shared()
        let redirect = try send(HTTPRequest(method: "GET", url: server.base + "/redirect"))
        #expect(redirect.status == 307)
        #expect(redirect.header("Location") == "/echo/redirected")
        #expect(redirect.body.isEmpty)
        let failed = try send(HTTPRequest(method: "GET", url: server.base + "/status/503"))
        #expect(failed.status == 503)
        #expect(!failed.isSuccess)
        #expect(failed.body == Array("status 503".utf8))
    }

    @Test("a refused connection is a connection failure: unavailable, naming the server, never the token")
    func refused() throws {
        let port = try freeLoopbackPort()
        let request = HTTPRequest(
            method: "POST", url: "http://user:pw@127.0.0.1:\(port)/v1/secret?token=query-secret",
            headers: [("X-Vault-Token", "hvs.token-secret")], body: Array("body-secret".utf8))
        let error = try #require(throws: HTTPError.self) { try send(request) }
        #expect(error.kind == .connect)
        #expect(error.isConnectionFailure)
        #expect(!error.connected)
        #expect(error.server == "http://127.0.0.1:\(port)")
        let vaultError = error.vaultError
        #expect(vaultError.code == .unavailable)
        #expect(vaultError.message.contains("127.0.0.1:\(port)"))
        for secret in ["token-secret", "body-secret", "query-secret", "pw"] {
            #expect(!vaultError.message.contains(secret))
        }
    }

    @Test("a server that accepts and never answers fails at the deadline")
    func hangingServer() throws {
        let server = try HTTPTestServer.shared()
        for url in [server.base + "/hang", "http://127.0.0.1:\(server.silentPort)/v1/x"] {
            let started = Date()
            let error = try #require(throws: HTTPError.self) {
                try send(HTTPRequest(method: "GET", url: url, headers: [("X-Vault-Token", "t0ken")]), seconds: 1)
            }
            let elapsed = Date().timeIntervalSince(started)
            #expect(error.kind == .timeout)
            // Connected, then not answered: OpenBao's cluster tells this from a node that did not
            // accept the connection by this, never by the clock.
            #expect(error.connected, "\(url)")
            #expect(error.vaultError.code == .unavailable)
            #expect(!error.vaultError.message.contains("t0ken"))
            // Not before the deadline (what the client controls); the upper bound only catches a
            // wait for the server, which holds the request for an hour: a loaded machine can
            // add seconds to a 1 s deadline, so it is not a measure of how late the client is.
            #expect(elapsed >= 0.9 && elapsed < 60, "took \(elapsed) s")
        }
        let spent = Deadline(seconds: 0)
        let error = try #require(throws: HTTPError.self) {
            try client.send(HTTPRequest(method: "GET", url: server.base + "/echo/x"), deadline: spent)
        }
        #expect(error.kind == .timeout)
    }

    @Test("a body larger than the limit fails instead of filling memory")
    func bodyLimit() throws {
        let server = try HTTPTestServer.shared()
        let small = HTTPClient(HTTPClient.Configuration(maxBodyLength: 1000))
        #expect(
            try send(HTTPRequest(method: "GET", url: server.base + "/bytes/1000"), client: small).body.count == 1000)
        let error = try #require(throws: HTTPError.self) {
            try send(HTTPRequest(method: "GET", url: server.base + "/bytes/5000"), client: small)
        }
        #expect(error.kind == .tooLarge)
    }

    @Test("the proxy comes from the environment given to the client, not the process's")
    func proxyFromGivenEnvironment() throws {
        let server = try HTTPTestServer.shared()
        // Through the test server as an HTTP proxy: the name never resolves, the proxy answers.
        let proxied = HTTPClient(
            HTTPClient.Configuration(proxies: HTTPProxy.Variables(environment: ["http_proxy": server.base])))
        let json = try send(HTTPRequest(method: "GET", url: "http://vault-proxy-test.invalid/echo/p"), client: proxied)
            .json()
        #expect(json["path"]?.string == "http://vault-proxy-test.invalid/echo/p")

        #expect(HTTPProxy(environment: [:], url: "https://a").proxy == nil)
        #expect(HTTPProxy(environment: ["HTTP_PROXY": "http://p:1"], url: "http://a").proxy == nil)
        #expect(HTTPProxy(environment: ["HTTPS_PROXY": "http://p:1"], url: "https://a").proxy == "http://p:1")
        #expect(
            HTTPProxy(environment: ["https_proxy": "http://s:1", "ALL_PROXY": "http://q:2"], url: "http://a").proxy
                == "http://q:2")
        #expect(HTTPProxy(environment: ["NO_PROXY": "localhost"], url: "http://a").noProxy == "localhost")
    }

    @Test("only http and https URLs are sent")
    func schemes() throws {
        for url in ["file:///etc/passwd", "ftp://127.0.0.1/", "127.0.0.1:8200"] {
            let error = try #require(throws: HTTPError.self) { try send(HTTPRequest(method: "GET", url: url)) }
            #expect(error.kind == .request)
            #expect(error.vaultError.code == .usage)
        }
    }

    @Test("an untrusted or missing CA file is a TLS failure")
    func tlsCAFile() throws {
        let server = try HTTPTestServer.shared()
        // A plain-HTTP server spoken to over TLS: the handshake fails, as with an untrusted server.
        let url = server.base.replacingOccurrences(of: "http:", with: "https:") + "/echo/x"
        let error = try #require(throws: HTTPError.self) { try send(HTTPRequest(method: "GET", url: url)) }
        #expect(error.kind == .tls)
        let missing = HTTPClient(HTTPClient.Configuration(caFile: "/nonexistent/ca.pem"))
        let caError = try #require(throws: HTTPError.self) {
            try send(HTTPRequest(method: "GET", url: url), client: missing)
        }
        #expect(caError.kind == .tls)
    }

    @Test("form and path encoding, and what a message may name of a URL")
    func encodings() {
        #expect(HTTPForm.encode([("a b", "c+d"), ("e", "")]) == Array("a+b=c%2Bd&e=".utf8))
        #expect(HTTPForm.pathSegment("a b/c~d.é") == "a%20b%2Fc~d.%C3%A9")
        #expect(HTTPURL.origin(of: "https://u:p@host:8200/v1/x?y#z") == "https://host:8200")
        #expect(HTTPURL.origin(of: "http://host") == "http://host")
        #expect(HTTPURL.origin(of: "nonsense") == "the server")
    }
}
