import FoundationEssentials
import VaultStorage

/// Where a secret lives in the KV v2 mount: `vault/<service>/<name>` (docs/openbao.md, "Layout").
///
/// A name containing `/` maps to nested paths, so `ci/npm` is `vault/<service>/ci/npm`. A name
/// that cannot map losslessly (an empty segment, `.` or `..` as a segment, a leading or trailing
/// `/`, or a character OpenBao refuses in a path: anything but letters, marks, numbers,
/// punctuation, symbols and the ASCII space, e.g. a no-break space) is stored escaped, as one segment `_vault64_` followed by the name in unpadded base64url
/// (RFC 4648 §5); a name that itself starts with `_vault64_` is escaped too, so every valid name
/// round-trips. A service is one segment: one containing `/` is escaped the same way.
enum OpenBaoPath {
    /// The folder under the mount that holds vault's secrets.
    static let root = "vault"
    /// Marks an escaped segment.
    static let escapePrefix = "_vault64_"

    /// The path of the service's folder below the mount, without a trailing `/`.
    static func folder(service: String) -> String {
        root + "/" + segment(service, nested: false)
    }

    /// The secret's path below the mount.
    static func path(of name: SecretName) -> String {
        folder(service: name.service) + "/" + segment(name.account, nested: true)
    }

    /// The name a listed key stands for: the service and the key's path below its folder; nil
    /// for a key vault would not have written (another tool's, or an invalid name).
    static func name(service: String, key: String) -> SecretName? {
        let account: String
        if key.hasPrefix(escapePrefix) {
            guard !key.contains("/"), let unescaped = unescape(key) else { return nil }
            account = unescaped
        } else {
            account = key
        }
        guard (try? SecretName(service: service, account: account)) != nil else { return nil }
        return SecretName(unchecked: service, account: account)
    }

    /// The service a listed folder segment stands for.
    static func service(segment: String) -> String? { unescape(segment) }

    /// Whether `text` maps to itself: as a nested path, every `/`-separated segment is non-empty
    /// and not `.` or `..`; as one segment, it holds no `/` and is not `.` or `..`.
    static func mapsPlainly(_ text: String, nested: Bool) -> Bool {
        guard !text.hasPrefix(escapePrefix), text.unicodeScalars.allSatisfy(isPrintable) else { return false }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        guard nested || segments.count == 1 else { return false }
        return segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// What OpenBao accepts in a path (Go's `unicode.IsPrint`): letters, marks, numbers,
    /// punctuation, symbols, and the ASCII space.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value >= 0x20 && scalar.value < 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }

    private static func segment(_ text: String, nested: Bool) -> String {
        guard !mapsPlainly(text, nested: nested) else { return text }
        return escapePrefix + base64url(Array(text.utf8))
    }

    private static func unescape(_ key: String) -> String? {
        guard key.hasPrefix(escapePrefix) else { return key }
        guard let bytes = unbase64url(String(key.dropFirst(escapePrefix.count))) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func base64url(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(text.compactMap { $0 == "=" ? nil : $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        return text
    }

    private static func unbase64url(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return [UInt8](data)
    }
}
