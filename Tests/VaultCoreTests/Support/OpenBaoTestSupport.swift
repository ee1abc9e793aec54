import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultOpenBao
@testable import VaultSystem

extension StoreFixture {
    /// The contract suite against a real OpenBao dev server: each run gets a KV v2 mount of its
    /// own, so the contract's parallel tests never see each other's secrets.
    static let openbao = StoreFixture(description: "openbao", service: "contract") {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        return (OpenBaoStore.testStore(server, mount: mount), { server.dropMount(mount) })
    }
}

extension OpenBaoStore {
    /// A store on the dev server's `mount` with its root token, or with `token`/`addresses`.
    static func testStore(
        _ server: OpenBaoDevServer, mount: String = "secret", token: String? = nil, addresses: [String]? = nil,
        timeout: Double = 10
    ) -> OpenBaoStore {
        OpenBaoStore(
            settings: OpenBaoSettings(
                addresses: addresses ?? [server.address],
                credentials: .token(SecureBytes((token ?? server.token).utf8), origin: "BAO_TOKEN"),
                mount: mount, timeout: timeout, http: HTTPClient.Configuration()))
    }
}
