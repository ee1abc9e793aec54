import Testing

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultSystem

/// What counts as this machine, where plain http is allowed and no proxy is used
/// (Support/HTTP/HTTPProxy.swift). End to end, with a listener standing in for the proxy:
/// EndToEndTests/LoopbackTests.swift.
@Suite("Loopback")
struct LoopbackTests {
    @Test("loopback is localhost and the canonical addresses of 127.0.0.0/8 and ::1, nothing else")
    func canonicalAddresses() {
        for host in ["localhost", "127.0.0.1", "127.255.255.254", "127.0.0.0", "::1"] {
            #expect(HTTPURL.isLoopback(host: host), "\(host)")
        }
        for host in [
            "127.0.0.08", "127.0.0.-0", "127.0.0.01", "0127.0.0.1", "127.1", "127.0.1", "127.0.0.1.", "127.0.0.256",
            "0:0:0:0:0:0:0:1", "::0:1", "::ffff:127.0.0.1", "128.0.0.1", "localhost.", "localhost.example", "",
            "127.0.0.1 ", "2130706433", "0x7f.0.0.1",
        ] {
            #expect(!HTTPURL.isLoopback(host: host), "\(host)")
        }
        #expect(TokenURL("http://127.0.0.08/t")?.isLoopback == false)
        #expect(TokenURL("http://[::1]:9/t")?.isLoopback == true)
        #expect(HTTPURL.host(of: "http://user@127.0.0.1:8200/v1") == "127.0.0.1")
        #expect(HTTPURL.host(of: "https://[::1]:8200") == "::1")
    }

    @Test("a loopback URL never uses a proxy; any other URL uses the proxy its scheme calls for")
    func noProxyForLoopback() {
        let all = ["http_proxy": "http://p:1", "https_proxy": "http://p:2", "all_proxy": "http://p:3"]
        for url in ["http://127.0.0.1:8200/v1/x", "https://localhost/token", "http://[::1]:80/", "HTTP://LOCALHOST/"] {
            #expect(HTTPProxy(environment: all, url: url).proxy == nil, "\(url)")
        }
        #expect(HTTPProxy(environment: all, url: "http://127.0.0.08/").proxy == "http://p:1")
        #expect(HTTPProxy(environment: all, url: "https://bao.example/").proxy == "http://p:2")
        #expect(HTTPProxy(environment: ["all_proxy": "http://p:3"], url: "http://bao.example/").proxy == "http://p:3")
    }
}
