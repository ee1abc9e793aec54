/// The proxy for one URL, chosen by libcurl's rules from the proxy variables the glue read
/// (``Variables``; `Glue/ProxyVariables.swift` reads them): the scheme's own proxy, then the
/// proxy for all; `noProxy` lists hosts that bypass it (libcurl matches them).
struct HTTPProxy: Equatable {
    /// The proxy variables, as the glue read them from its configuration (never the process's).
    struct Variables: Sendable, Equatable {
        /// The proxy for http URLs.
        var http: String?
        /// The proxy for https URLs.
        var https: String?
        /// The proxy for both, when the scheme has none.
        var all: String?
        /// Hosts reached without a proxy.
        var noProxy: String?
    }

    var proxy: String?
    var noProxy: String?

    init(_ variables: Variables, url: String) {
        let https = url.lowercased().hasPrefix("https:")
        proxy = (https ? variables.https : variables.http) ?? variables.all
        noProxy = variables.noProxy
    }
}

/// What the HTTP layer needs to know about a URL.
enum HTTPURL {
    /// Whether the URL is http:// or https://.
    static func isHTTP(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Whether `host` (lower case, without brackets or port) is this machine: `localhost`,
    /// 127.0.0.0/8 or `::1`. Plain http is allowed to such a host only: nothing crosses a network.
    static func isLoopback(host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// `scheme://authority` of the URL, without user information, path or query: what messages
    /// may name.
    static func origin(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return "the server"
        }
        let start = colon + 3
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        let authority = bytes[start..<end]
        let host = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
        return String(decoding: bytes[..<start] + host, as: UTF8.self)
    }
}
