import VaultSystem

/// A token endpoint's URL as vault approves it: its origin, parsed strictly.
///
/// An approval is of an origin (`scheme://host[:port]`), so the origin must be the one libcurl
/// connects to. Only plain URLs are accepted: `http` or `https`, a host of letters, digits, dots
/// and hyphens (or a bracketed IPv6 address), an optional port, and no user information (an `@`
/// before the path is how `https://good.example@evil.example/` hides its real host). Anything
/// else is refused rather than guessed at.
public struct TokenURL: Equatable, Sendable {
    /// `scheme://host[:port]`, lower case, the scheme's default port left out.
    public let origin: String
    /// Whether the scheme is `http` (tokens in clear).
    public let isPlainHTTP: Bool
    /// Whether the host is this machine: `localhost`, 127.0.0.0/8 or `[::1]` (``HTTPURL/isLoopback(host:)``).
    public let isLoopback: Bool
    /// The path as written, from its first `/` up to a query or fragment; empty if none.
    public let path: String

    /// Parses `url`; nil when it is not a plain http(s) URL as described above.
    public init?(_ url: String) {
        let bytes = Array(url.utf8)
        // No white space or control characters anywhere: curl and vault must read the same URL.
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return nil }
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let start = scheme.utf8.count + 3
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        guard let (host, port) = Self.hostAndPort(Array(bytes[start..<end])) else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        origin = "\(scheme)://\(host)" + (port == nil || port == defaultPort ? "" : ":\(port!)")
        isPlainHTTP = scheme == "http"
        isLoopback = HTTPURL.isLoopback(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host)
        let pathEnd = bytes[end...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        path = String(decoding: bytes[end..<pathEnd], as: UTF8.self)
    }

    /// The host (lower case) and port of an authority without user information.
    private static func hostAndPort(_ authority: [UInt8]) -> (String, Int?)? {
        var hostBytes = authority[...]
        var portBytes: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostBytes = authority[...close]
            let inner = authority[1..<close]
            guard !inner.isEmpty, inner.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == 0x2E })
            else { return nil }
            let rest = authority[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                portBytes = rest.dropFirst()
            }
        } else {
            if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                hostBytes = authority[..<colon]
                portBytes = authority[(colon + 1)...]
            }
            guard !hostBytes.isEmpty,
                hostBytes.allSatisfy({ isHexDigit($0) || isLetter($0) || $0 == 0x2E || $0 == 0x2D })
            else { return nil }
        }
        var port: Int?
        if let portBytes {
            guard (1...5).contains(portBytes.count), portBytes.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = Int(String(decoding: portBytes, as: UTF8.self)), (1...65_535).contains(number)
            else { return nil }
            port = number
        }
        return (String(decoding: hostBytes, as: UTF8.self).lowercased(), port)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// Parses one entry of `VAULT_REFRESH_ORIGINS`: an origin, or an origin and a path prefix
    /// (`https://login.example/tenant-a`, for a login service that serves many tenants at one
    /// origin), as the origin followed by the path without a trailing `/`; nil for anything else
    /// (a query, a fragment, a `.` or `..` segment, percent-encoding).
    public static func listEntry(_ text: String) -> String? {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = TokenURL(text), !text.contains("?"), !text.contains("#"), !url.path.contains("%") else {
            return nil
        }
        let segments = url.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return url.origin + url.path
    }

    /// Parses one entry of `VAULT_REFRESH_ORIGINS`: an origin, optionally with a trailing `/`.
    public init?(origin text: String) {
        var text = text
        if text.hasSuffix("/") { text.removeLast() }
        guard let url = TokenURL(text), !text.dropFirst(url.isPlainHTTP ? 7 : 8).contains(where: { "/?#".contains($0) })
        else { return nil }
        self = url
    }
}
