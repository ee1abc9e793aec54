#if canImport(Glibc)
    import Glibc
#endif

/// A strict reader and writer for the small JSON subset the vault document uses: one object per
/// line whose values are strings, integers or `null`.
///
/// Hand-written rather than `JSONDecoder` so that `vault get` can find one record among
/// thousands by scanning keys, without decoding every value (see docs/design.md, "Speed").
/// The reader works on slices of an unsafe buffer (``Bytes``): a scan retains and allocates
/// nothing, which matters at 10,000 lines. Slices are valid only while the caller's
/// `withUnsafeBufferPointer` lasts, and nothing here keeps one longer.
enum JSONLine {
    /// Part of a document held in memory for the duration of a scan.
    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// A scanned string: the raw bytes between the quotes, decoded only on demand.
    struct RawString {
        let raw: Bytes
        /// Whether `raw` holds a backslash escape (else it is the string's UTF-8, if valid).
        let escaped: Bool

        /// The decoded string, or `nil` if its escapes or its UTF-8 are invalid.
        ///
        /// Unescaped text is made with `String(decoding:)`, which repairs invalid UTF-8, and then
        /// compared with the bytes: a repair shows as a difference. `String(validating:)` on a
        /// slice instantiates generic metadata at run time on every call.
        var string: String? {
            if escaped { return JSONLine.unescape(raw) }
            let bytes = UnsafeBufferPointer(rebasing: raw)
            var text = String(decoding: bytes, as: UTF8.self)
            if !bytes.contains(where: { $0 >= 0x80 }) { return text }  // ASCII is valid UTF-8
            let same = text.withUTF8 { made in
                made.count == bytes.count && memcmp(made.baseAddress!, bytes.baseAddress!, made.count) == 0
            }
            return same ? text : nil
        }

        /// The string quoted for an error message (``JSONLine/shown(_:)``); invalid UTF-8 repaired.
        var shown: String { JSONLine.shown(string ?? String(decoding: raw, as: UTF8.self)) }

        /// Whether this is exactly the ASCII text `bytes` (a key), without decoding when it has no escapes.
        func isASCII(_ bytes: [UInt8]) -> Bool {
            if !escaped { return raw.elementsEqual(bytes) }
            return string.map { $0.utf8.elementsEqual(bytes) } ?? false
        }
    }

    /// One scanned value: strings stay raw until asked for.
    enum Value {
        case string(RawString)
        case integer(Int64)
        case null

        /// The decoded string, or `nil` if this is not a string or its escapes are invalid.
        var string: String? {
            guard case .string(let raw) = self else { return nil }
            return raw.string
        }
    }

    struct Failure: Error {
        let reason: String

        init(reason: String) { self.reason = reason }
    }

    /// Scans one line holding a JSON object and calls `field` for each key and value, in order.
    ///
    /// Keys are handed over raw, so a caller that knows its keys never builds a `String` for them.
    static func scanObject(_ line: Bytes, field: (RawString, Value) throws(Failure) -> Void) throws(Failure) {
        var scanner = Scanner(line)
        try scanner.expect(0x7B, "'{'")
        scanner.skipSpace()
        if scanner.peek == 0x7D {
            scanner.index += 1
        } else {
            while true {
                let key = try scanner.string()
                try scanner.expect(0x3A, "':'")
                scanner.skipSpace()
                let value: Value
                guard let first = scanner.peek else { throw Failure(reason: "missing value") }
                switch first {
                case 0x22:
                    value = .string(try scanner.string())
                case 0x6E:
                    guard scanner.skip(nullLiteral) else { throw Failure(reason: "invalid value") }
                    value = .null
                case 0x2D, 0x30...0x39:
                    value = .integer(try scanner.integer())
                default:
                    throw Failure(reason: "unsupported value")
                }
                try field(key, value)
                scanner.skipSpace()
                guard let next = scanner.peek else { throw Failure(reason: "unterminated object") }
                if next == 0x2C {
                    scanner.index += 1
                    continue
                }
                try scanner.expect(0x7D, "'}'")
                break
            }
        }
        scanner.skipSpace()
        guard scanner.index == line.endIndex else { throw Failure(reason: "trailing characters after the object") }
    }

    private static let nullLiteral = Array("null".utf8)

    /// The index of the first quote, backslash or control character (below 0x20) at or after
    /// `index`, or `end`: the bytes a string scan must stop at, found eight at a time (``ByteScan``).
    static func firstSpecial(_ base: UnsafeBufferPointer<UInt8>, from index: Int, to end: Int) -> Int {
        guard let start = base.baseAddress else { return end }
        return ByteScan.first(in: start, from: index, to: end) {
            ByteScan.equal($0, 0x22) | ByteScan.equal($0, 0x5C) | ByteScan.control($0)
        }
    }

    /// A cursor over one line. Reads go through the buffer's base address with `index` kept
    /// inside `line`'s bounds by every loop, so the hot loops carry no per-byte range checks.
    private struct Scanner {
        let line: Bytes
        let base: UnsafeBufferPointer<UInt8>
        var index: Int

        init(_ line: Bytes) {
            self.line = line
            base = line.base
            index = line.startIndex
        }

        var peek: UInt8? { index < line.endIndex ? base[index] : nil }

        mutating func skipSpace() {
            while index < line.endIndex, base[index] == 0x20 || base[index] == 0x09 || base[index] == 0x0D {
                index += 1
            }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
            skipSpace()
            guard index < line.endIndex, base[index] == byte else { throw Failure(reason: "expected \(what)") }
            index += 1
        }

        /// Skips `literal` if the line continues with it.
        mutating func skip(_ literal: [UInt8]) -> Bool {
            guard line.endIndex - index >= literal.count,
                literal.withUnsafeBytes({ memcmp(base.baseAddress! + index, $0.baseAddress!, $0.count) == 0 })
            else { return false }
            index += literal.count
            return true
        }

        /// A string, from its opening quote (after optional space) to its closing quote.
        mutating func string() throws(Failure) -> RawString {
            try expect(0x22, "a string")
            let start = index
            var escaped = false
            let end = line.endIndex
            while true {
                index = JSONLine.firstSpecial(base, from: index, to: end)
                guard index < end else { break }
                let byte = base[index]
                if byte == 0x22 { break }
                if byte < 0x20 { throw Failure(reason: "control character in a string") }
                escaped = true  // a backslash: skip it and the character it escapes
                index += 2
            }
            guard index < end else { throw Failure(reason: "unterminated string") }
            defer { index += 1 }
            return RawString(raw: line[start..<index], escaped: escaped)
        }

        /// An integer: an optional minus sign and digits, in Int64's range.
        mutating func integer() throws(Failure) -> Int64 {
            let start = index
            if base[index] == 0x2D { index += 1 }
            while index < line.endIndex, (0x30...0x39).contains(base[index]) { index += 1 }
            guard let number = Int64(String(decoding: line[start..<index], as: UTF8.self)) else {
                throw Failure(reason: "invalid number")
            }
            return number
        }
    }

    /// Decodes the escapes of a JSON string body. Returns `nil` on an invalid escape or invalid UTF-8.
    static func unescape(_ raw: Bytes) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = raw.startIndex
        func hex4() -> UInt32? {
            guard i + 4 <= raw.endIndex else { return nil }
            var v: UInt32 = 0
            for b in raw[i..<i + 4] {
                guard let d = hexDigit(b) else { return nil }
                v = v << 4 | UInt32(d)
            }
            i += 4
            return v
        }
        while i < raw.endIndex {
            let byte = raw[i]
            i += 1
            guard byte == 0x5C else {
                out.append(byte)
                continue
            }
            guard i < raw.endIndex else { return nil }
            let e = raw[i]
            i += 1
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard var scalar = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 2 <= raw.endIndex, raw[i] == 0x5C, raw[i + 1] == 0x75 else { return nil }
                    i += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let s = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: String(Character(s)).utf8)
            default:
                return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A key read from a document, quoted for an error message: at most 40 characters, with
    /// control, format and line-separator characters escaped, so that a hostile file can neither
    /// break the one-line message, flood the terminal, nor send it escape sequences.
    static func shown(_ key: String) -> String {
        var out = "'"
        for scalar in key.unicodeScalars.prefix(40) {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + (key.unicodeScalars.count > 40 ? "...'" : "'")
    }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}
