import VaultSecureBytes
package import VaultStorage

/// A parsed JSON document (RFC 8259), strict: one value, UTF-8, no trailing commas or comments.
///
/// Strings are kept as their UTF-8 bytes so that a value survives byte for byte; object members
/// keep their order. It reads all JSON but the vault document (Document/ scans that itself, for
/// speed): `import --format json` (SecretsJSON), the HTTP bodies of OpenBao and OAuth
/// (HTTP/JSONValue+Access.swift), the living tokens' companion and refresh journal, and Docker's
/// credential-helper protocol.
package indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// A number, as written; `integer` (JSONValue+Access.swift) reads a whole one.
    case number(String)
    case string([UInt8])
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Parses a whole document. Errors are `.usage` and name the line.
    package static func parse(_ bytes: [UInt8]) throws(VaultError) -> JSONValue {
        let parsed = bytes.withUnsafeBytes { bytes in Result { () throws(VaultError) in try parse(bytes) } }
        return try parsed.get()
    }

    /// Parses a whole document read in place: an HTTP body that may hold a secret is parsed
    /// where it is, with no copy. Each string's bytes are a new array (of its final size, so
    /// that growing it leaves no partial copy behind) that ``wipeStrings()`` can zero.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(VaultError) -> JSONValue {
        // Not `String(validating:)`: that would copy the whole document into a String.
        guard UTF8.isValid(bytes) else {
            throw VaultError(.usage, "the JSON input is not valid UTF-8")
        }
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.atEnd else { throw parser.fail("unexpected text after the JSON value") }
        return value
    }
}

extension UTF8 {
    /// Whether `bytes` are well-formed UTF-8, checked without making a copy of them.
    static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

extension SecureBytes {
    /// Whether the bytes are text: well-formed UTF-8 without a NUL byte (a JSON `value` or a
    /// dotenv value; anything else is written as `value_base64`). Checked in place:
    /// `String(validating:)` would leave an unwiped copy of the secret.
    package var isText: Bool { withUnsafeBytes { !$0.contains(0) && UTF8.isValid($0) } }
}

private struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var i = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    var atEnd: Bool { i >= bytes.count }

    func fail(_ reason: String) -> VaultError {
        let line = bytes[..<min(i, bytes.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        return VaultError(.usage, "JSON line \(line): \(reason)")
    }

    mutating func skipSpace() {
        while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(VaultError) -> JSONValue {
        guard bytes[i...].starts(with: word.utf8) else { throw fail("unexpected character") }
        i += word.utf8.count
        return value
    }

    mutating func value(depth: Int) throws(VaultError) -> JSONValue {
        guard depth < 64 else { throw fail("nested too deeply") }
        guard !atEnd else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(VaultError) -> JSONValue {
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        skipSpace()
        if !atEnd, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard !atEnd, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
            let key = String(decoding: try string(), as: UTF8.self)
            skipSpace()
            guard !atEnd, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            i += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard !atEnd else { throw fail("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
            i += 1
        }
    }

    mutating func array(depth: Int) throws(VaultError) -> JSONValue {
        i += 1
        var elements: [JSONValue] = []
        skipSpace()
        if !atEnd, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return .array(elements)
        }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard !atEnd else { throw fail("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(elements)
            }
            guard bytes[i] == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
            i += 1
        }
    }

    mutating func number() throws(VaultError) -> JSONValue {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int {
            let from = i
            while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            return i - from
        }
        let integer = digits()
        guard integer > 0, integer == 1 || bytes[i - integer] != UInt8(ascii: "0") else { throw fail("invalid number") }
        if !atEnd, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw fail("invalid number") }
        }
        if !atEnd, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if !atEnd, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw fail("invalid number") }
        }
        return .number(String(decoding: bytes[start..<i], as: UTF8.self))
    }

    mutating func hex4() throws(VaultError) -> UInt32 {
        guard i + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16),
            bytes[i..<i + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw fail("invalid \\u escape") }
        i += 4
        return code
    }

    /// A string's bytes, from its opening quote to just after the closing one.
    mutating func string() throws(VaultError) -> [UInt8] {
        i += 1
        // The decoded string is at most as long as its escaped text: room for all of it, so the
        // array never grows (a grown array's old buffer would be freed with a copy of the start).
        var end = i
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(min(end, bytes.count) - i)
        while true {
            guard !atEnd else { throw fail("unterminated string") }
            let byte = bytes[i]
            i += 1
            switch byte {
            case UInt8(ascii: "\""):
                return out
            case 0..<0x20:
                throw fail("a control character in a string must be escaped")
            case UInt8(ascii: "\\"):
                guard !atEnd else { throw fail("unterminated string") }
                let escape = bytes[i]
                i += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes[i...].starts(with: "\\u".utf8) else {
                            throw fail("a lone surrogate in \\u escapes")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate in \\u escapes") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        throw fail("a lone surrogate in \\u escapes")
                    }
                    out += String(Unicode.Scalar(code)!).utf8
                default:
                    throw fail("invalid escape in a string")
                }
            default:
                out.append(byte)
            }
        }
    }
}
