import Foundation
import Testing
import VaultTestSupport

/// Plain http goes only to this machine, and never through a proxy (docs/openbao.md,
/// docs/tokens.md): a loopback URL is `localhost` or a canonical loopback address, and a
/// listener standing in for the proxy (`http_proxy`, `all_proxy`) records whether anything
/// reached it. The OAuth token endpoint's case, which needs the Authlib server, is in
/// OAuthLoopbackTests.swift.
@Suite("Loopback")
struct LoopbackEndToEndTests {
    /// Every proxy variable libcurl knows, pointing at `proxy`.
    static func proxies(_ proxy: SilentListener) -> [String: String] {
        let url = "http://127.0.0.1:\(proxy.port)"
        return ["http_proxy": url, "https_proxy": url, "HTTPS_PROXY": url, "all_proxy": url, "ALL_PROXY": url]
    }

    @Test("OpenBao at a loopback address is reached directly, never through http_proxy or all_proxy")
    func openBaoWithoutProxy() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment.merge(
            [
                "VAULT_BACKEND": "openbao", "BAO_ADDR": server.address, "BAO_TOKEN": server.token,
                "BAO_KV_MOUNT": mount, "VAULT_TIMEOUT": "3",
            ]) { $1 }
        let proxy = try SilentListener()
        try vault.run(["set", "x"], stdin: Array("direct".utf8), env: Self.proxies(proxy)).expectSuccess()
        let got = try vault.run(["get", "x"], env: Self.proxies(proxy))
        #expect(got.status == 0 && got.stdoutText == "direct", "\(got.stderr)")
        #expect(proxy.takeConnections() == 0, "a request with the OpenBao token reached the proxy")
    }

    @Test("an address libcurl would resolve by name (127.0.0.08, 127.1, 0:0:0:0:0:0:0:1) is no loopback")
    func onlyCanonicalLoopback() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let response = Array(#"{"access_token":"a","expires_in":60,"refresh_token":"r"}"#.utf8)
        for host in ["127.0.0.08", "127.0.0.-0", "127.1", "[0:0:0:0:0:0:0:1]"] {
            let imported = try vault.run(
                ["oauth", "import", "t", "--token-url", "http://\(host)/t", "--client-id", "c"], stdin: response)
            imported.expectFailure(2, "VAULT_ALLOW_HTTP")
            let bao = try vault.run(
                ["--backend", "openbao", "get", "x"], env: ["BAO_ADDR": "http://\(host):8200", "BAO_TOKEN": "t"])
            bao.expectFailure(2, "VAULT_ALLOW_HTTP")
        }
        try vault.run(
            ["oauth", "import", "t", "--token-url", "http://127.0.0.1:9/t", "--client-id", "c"], stdin: response
        ).expectSuccess()
    }

    @Test("ACTIONS_ID_TOKEN_REQUEST_URL: plain http to another machine is refused before the request token is sent")
    func actionsURLPlainHTTP() throws {
        let vault = try VaultRunner()
        defer { vault.cleanUp() }
        let actions = try SilentListener()
        let env = [
            "VAULT_BACKEND": "openbao", "BAO_ADDR": "https://bao.example", "BAO_JWT_ROLE": "ci",
            "ACTIONS_ID_TOKEN_REQUEST_URL": "http://actions.example/token?api-version=2.0",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token-value", "VAULT_TIMEOUT": "2",
        ]
        let refused = try vault.run(["get", "x"], env: env)
        refused.expectFailure(2, "ACTIONS_ID_TOKEN_REQUEST_URL")
        #expect(refused.stderr.contains("VAULT_ALLOW_HTTP") && !refused.stderr.contains("request-token-value"))
        // This machine (a runner's local endpoint in a test) is allowed, and reached without a proxy.
        var local = env
        local["ACTIONS_ID_TOKEN_REQUEST_URL"] = "http://127.0.0.1:\(actions.port)/token"
        local["VAULT_TIMEOUT"] = "1"
        let proxy = try SilentListener()
        let reached = try vault.run(["get", "x"], env: local.merging(Self.proxies(proxy)) { $1 })
        reached.expectFailure(5, "ACTIONS_ID_TOKEN_REQUEST_URL")
        #expect(actions.takeConnections() >= 1, "the Actions endpoint on this machine was not asked")
        #expect(proxy.takeConnections() == 0)
    }
}
