#if canImport(Glibc)
    import Glibc
#endif

/// The proxy for one URL, chosen by libcurl's rules from the proxy variables the glue read
/// (``Variables``; `VaultCore/ProxyVariables.swift` reads them): the scheme's own proxy, then the
/// proxy for all; `noProxy` lists hosts that bypass it (libcurl matches them).
package struct HTTPProxy: Equatable {
    /// The proxy variables, as the glue read them from its configuration (never the process's).
    package struct Variables: Sendable, Equatable {
        /// The proxy for http URLs.
        package var http: String?
        /// The proxy for https URLs.
        package var https: String?
        /// The proxy for both, when the scheme has none.
        package var all: String?
        /// Hosts reached without a proxy.
        package var noProxy: String?

        package init(http: String? = nil, https: String? = nil, all: String? = nil, noProxy: String? = nil) {
            self.http = http
            self.https = https
            self.all = all
            self.noProxy = noProxy
        }
    }

    package var proxy: String?
    package var noProxy: String?

    package init(_ variables: Variables, url: String) {
        let https = url.lowercased().hasPrefix("https:")
        // Plain http is allowed to this machine because nothing crosses a network: a proxy
        // would carry the request (and its token) off it, so a loopback URL never uses one,
        // whatever `no_proxy` says.
        proxy =
            HTTPURL.isLoopback(host: HTTPURL.host(of: url))
            ? nil : (https ? variables.https : variables.http) ?? variables.all
        noProxy = variables.noProxy
    }
}

/// What the HTTP layer needs to know about a URL.
package enum HTTPURL {
    /// Whether the URL is http:// or https://.
    package static func isHTTP(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Whether `host` (lower case, without brackets or port) is this machine: `localhost`, an
    /// address in 127.0.0.0/8 written as `inet_pton` reads it and `inet_ntop` writes it back
    /// (`127.0.0.1`, never `127.0.0.08` or `127.1`, which libcurl would hand to the resolver), or
    /// `::1`. Plain http is allowed to such a host only, and no proxy is used for it: nothing
    /// crosses a network.
    package static func isLoopback(host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil,
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == host
        else { return false }
        // s_addr is in network order: its first byte in memory is the first octet.
        return withUnsafeBytes(of: address.s_addr) { $0[0] } == 127
    }

    /// The host of an http(s) URL, lower case, without brackets, port or user information.
    package static func host(of url: String) -> String {
        let origin = origin(of: url).lowercased()
        let authority = origin.dropFirst(origin.hasPrefix("https://") ? 8 : 7)
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return String(authority) }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// `scheme://authority` of the URL, without user information, path or query: what messages
    /// may name.
    package static func origin(of url: String) -> String {
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
