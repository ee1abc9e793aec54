import Foundation
import Testing
import VaultTestSupport

/// A loopback token endpoint is reached directly, whatever proxy the environment names: in the
/// OAuth suite, whose Authlib server counts the refreshes it answers.
extension OAuthRefreshTests {
    @Test("a loopback token endpoint is never reached through http_proxy, all_proxy or HTTPS_PROXY")
    func loopbackEndpointWithoutProxy() throws {
        let (vault, server) = try setUp()
        defer { vault.cleanUp() }
        let proxy = try SilentListener()
        _ = try importToken(vault, server)
        let before = try refreshes(server)
        let got = try vault.run(
            ["get", "gh"], env: LoopbackEndToEndTests.proxies(proxy).merging(["VAULT_TIMEOUT": "3"]) { $1 })
        #expect(got.status == 0 && !got.stdout.isEmpty, "\(got.stderr)")
        #expect(proxy.takeConnections() == 0, "the refresh token was sent to the proxy")
        #expect(try refreshes(server) == before + 1)
    }
}
