/// The proxy for one URL, chosen from the environment the glue was given (not the process's), by
/// libcurl's rules: `http_proxy` (lower case only, as curl: `HTTP_PROXY` can be set by a CGI
/// request) for http, `https_proxy`/`HTTPS_PROXY` for https, then `all_proxy`/`ALL_PROXY`;
/// `no_proxy`/`NO_PROXY` lists hosts that bypass it (libcurl matches them).
struct HTTPProxy: Equatable {
    var proxy: String?
    var noProxy: String?

    init(environment: [String: String], url: String) {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let https = url.lowercased().hasPrefix("https:")
        let specific = https ? value("https_proxy") ?? value("HTTPS_PROXY") : value("http_proxy")
        proxy = specific ?? value("all_proxy") ?? value("ALL_PROXY")
        noProxy = value("no_proxy") ?? value("NO_PROXY")
    }
}

/// What the HTTP layer needs to know about a URL.
enum HTTPURL {
    /// Whether the URL is http:// or https://.
    static func isHTTP(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
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
