public import VaultSecureBytes
public import VaultStorage

/// A one-time code seed as an `otpauth://` URI carries it (the key URI format Google
/// Authenticator defined and every issuer writes): `otpauth://totp/LABEL?secret=BASE32&...` or
/// `otpauth://hotp/LABEL?secret=BASE32&counter=N&...`.
///
/// The value of a ``SecretKind/totp`` or ``SecretKind/hotp`` secret is the seed's ``uri``, in one
/// canonical form; a HOTP secret's counter is the next one to use.
public struct OneTimeCodeSeed: Sendable {
    /// The HMAC hash of the codes (the URI's `algorithm`, SHA1 when absent).
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    /// ``SecretKind/totp`` or ``SecretKind/hotp``.
    public var kind: SecretKind
    /// The HMAC key (the decoded `secret`).
    var key: SecureBytes
    public var algorithm: Algorithm
    /// How many digits a code has: 6 to 8.
    public var digits: Int
    /// TOTP: the seconds each code is valid for (`period`, default 30).
    public var period: Int
    /// HOTP: the counter of the next code.
    public var counter: UInt64
    /// The URI's label (percent-decoded), often `Issuer:account`.
    public var label: String
    /// The URI's `issuer`, if it has one.
    public var issuer: String?

    /// The digits a code may have.
    public static let digitRange = 6...8
    /// The periods a TOTP seed may have, in seconds.
    public static let periodRange = 1...86_400

    /// Parses an otpauth URI. Blanks and line ends around it are ignored (a URI piped in ends in a
    /// newline); anything else that is not a well-formed seed is `.usage`, naming what is wrong
    /// but never the seed.
    public init(parsing uri: SecureBytes) throws(VaultError) {
        self = try uri.withTemporaryArray { (bytes) throws(VaultError) in try Self.parse(bytes[...]) }
    }

    init(
        kind: SecretKind, key: SecureBytes, algorithm: Algorithm, digits: Int, period: Int, counter: UInt64,
        label: String, issuer: String?
    ) {
        self.kind = kind
        self.key = key
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = counter
        self.label = label
        self.issuer = issuer
    }

    /// The seed as a canonical URI: upper-case unpadded secret, then `issuer` (if any),
    /// `algorithm`, `digits`, and `period` or `counter`. What the store keeps.
    public var uri: SecureBytes {
        var out = SecureBytes("otpauth://\(kind.rawValue)/".utf8)
        out += Self.percentEncoded(label).utf8
        out += "?secret=".utf8
        Base32.append(key, to: &out)
        if let issuer { out += "&issuer=\(Self.percentEncoded(issuer))".utf8 }
        out += "&algorithm=\(algorithm.rawValue)&digits=\(digits)".utf8
        out += (kind == .hotp ? "&counter=\(counter)" : "&period=\(period)").utf8
        return out
    }

    // MARK: - Parsing

    private static func fail(_ reason: String) -> VaultError {
        VaultError(.usage, "the otpauth URI \(reason)")
    }

    private static func parse(_ input: ArraySlice<UInt8>) throws(VaultError) -> OneTimeCodeSeed {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var text = input.drop(while: isBlank)
        while let last = text.last, isBlank(last) { text = text.dropLast() }
        let scheme = Array("otpauth://".utf8)
        guard text.count > scheme.count, zip(text.prefix(scheme.count), scheme).allSatisfy({ lower($0) == $1 }) else {
            throw VaultError(.usage, "the input is not an otpauth:// URI (otpauth://totp/... or otpauth://hotp/...)")
        }
        text = text.dropFirst(scheme.count)
        guard !text.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }) else {
            throw fail("holds a blank, a control character, a '#' or a byte outside ASCII")
        }
        guard let slash = text.firstIndex(of: UInt8(ascii: "/")) else { throw fail("has no type (totp or hotp)") }
        let type = String(decoding: text[..<slash].map(lower), as: UTF8.self)
        guard let kind = SecretKind(rawValue: type), kind.isOneTimeCode else {
            throw fail("has the type '\(shown(text[..<slash]))'; the types are totp and hotp")
        }
        let rest = text[(slash + 1)...]
        let question = rest.firstIndex(of: UInt8(ascii: "?")) ?? rest.endIndex
        guard let label = decodedText(rest[..<question]) else {
            throw fail("has a label that is not percent-encoded UTF-8 text without control characters")
        }
        var parameters: [String: ArraySlice<UInt8>] = [:]
        if question < rest.endIndex {
            for pair in rest[(question + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
                let key = String(decoding: pair[..<equals], as: UTF8.self).lowercased()
                guard parameters[key] == nil else { throw fail("gives '\(shown(pair[..<equals]))' twice") }
                parameters[key] = equals < pair.endIndex ? pair[(equals + 1)...] : []
            }
        }
        guard let secret = parameters["secret"], !secret.isEmpty else { throw fail("has no secret") }
        var decoded = percentDecoded(secret) ?? []
        defer { wipe(&decoded) }
        guard let key = Base32.decode(decoded) else { throw fail("has a secret that is not base32 (A-Z, 2-7)") }
        var algorithm = Algorithm.sha1
        if let raw = parameters["algorithm"] {
            let name = String(decoding: raw.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
            guard let known = Algorithm(rawValue: name) else {
                throw fail("has the algorithm '\(shown(raw))'; the algorithms are SHA1, SHA256 and SHA512")
            }
            algorithm = known
        }
        let digits = try number(parameters["digits"], "digits", default: 6, in: digitRange)
        let period = try number(parameters["period"], "period", default: 30, in: periodRange)
        var counter: UInt64 = 0
        if kind == .hotp {
            guard let raw = parameters["counter"] else { throw fail("of a hotp seed has no counter") }
            guard raw.count <= 20, raw.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = UInt64(String(decoding: raw, as: UTF8.self)), value < UInt64.max
            else { throw fail("has the counter '\(shown(raw))'; it is a whole number from 0") }
            counter = value
        }
        var issuer: String?
        if let raw = parameters["issuer"] {
            guard let text = decodedText(raw) else {
                throw fail("has an issuer that is not percent-encoded UTF-8 text without control characters")
            }
            issuer = text
        }
        return OneTimeCodeSeed(
            kind: kind, key: key, algorithm: algorithm, digits: digits, period: period, counter: counter,
            label: label, issuer: issuer)
    }

    private static func number(_ raw: ArraySlice<UInt8>?, _ key: String, default value: Int, in range: ClosedRange<Int>)
        throws(VaultError) -> Int
    {
        guard let raw else { return value }
        guard raw.count <= 6, raw.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let number = Int(String(decoding: raw, as: UTF8.self)), range.contains(number)
        else {
            throw fail(
                "has \(key) '\(shown(raw))'; \(key) is a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// Part of the input to quote in a message: at most 20 characters, never a seed (only other
    /// parameters are quoted).
    private static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(20), as: UTF8.self) + (bytes.count > 20 ? "..." : "")
    }

    /// `bytes` with each `%XX` decoded; nil when a `%` is not followed by two hex digits.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else {
                wipe(&out)
                return nil
            }
            out.append(high << 4 | low)
            index += 3
        }
        return out
    }

    /// Percent-decoded UTF-8 text of at most 255 bytes without control characters, or nil.
    private static func decodedText(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let decoded = percentDecoded(bytes), decoded.count <= 255,
            !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }),
            let text = String(validating: decoded, as: UTF8.self)
        else { return nil }
        return text
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` percent-encoded but for RFC 3986's unreserved characters and `:` and `@`, which
    /// labels use (`Issuer:alice@example.com`).
    private static func percentEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
