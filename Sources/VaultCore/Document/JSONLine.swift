/// A strict reader and writer for the small JSON subset the vault document uses: one object per
/// line whose values are strings, integers or `null`.
///
/// Hand-written rather than `JSONDecoder` so that `vault get` can find one record among
/// thousands by scanning keys, without decoding every value (see docs/design.md, "Speed").
enum JSONLine {
    /// One scanned value: strings are kept as the raw bytes between the quotes and decoded on demand.
    enum Value {
        case string(raw: ArraySlice<UInt8>, escaped: Bool)
        case integer(Int64)
        case null

        /// The decoded string, or `nil` if this is not a string or its escapes are invalid.
        var string: String? {
            guard case .string(let raw, let escaped) = self else { return nil }
            if !escaped { return String(validating: raw, as: UTF8.self) }
            return JSONLine.unescape(raw)
        }
    }

    struct Failure: Error {
        let reason: String
    }

    /// Scans one line holding a JSON object and calls `field` for each key and value, in order.
    static func scanObject(
        _ line: ArraySlice<UInt8>, field: (String, Value) throws(Failure) -> Void
    ) throws(Failure) {
        var i = line.startIndex
        let end = line.endIndex
        func skipSpace() {
            while i < end, line[i] == 0x20 || line[i] == 0x09 || line[i] == 0x0D { i += 1 }
        }
        func expect(_ byte: UInt8, _ what: String) throws(Failure) {
            skipSpace()
            guard i < end, line[i] == byte else { throw Failure(reason: "expected \(what)") }
            i += 1
        }
        func scanString() throws(Failure) -> Value {
            try expect(0x22, "a string")
            let start = i
            var escaped = false
            while i < end {
                let byte = line[i]
                if byte == 0x22 { break }
                if byte < 0x20 { throw Failure(reason: "control character in a string") }
                if byte == 0x5C {
                    escaped = true
                    i += 1
                }
                i += 1
            }
            guard i < end else { throw Failure(reason: "unterminated string") }
            defer { i += 1 }
            return .string(raw: line[start..<i], escaped: escaped)
        }
        try expect(0x7B, "'{'")
        skipSpace()
        if i < end, line[i] == 0x7D {
            i += 1
        } else {
            while true {
                guard let key = try scanString().string else { throw Failure(reason: "invalid key") }
                try expect(0x3A, "':'")
                skipSpace()
                guard i < end else { throw Failure(reason: "missing value") }
                let value: Value
                switch line[i] {
                case 0x22:
                    value = try scanString()
                case 0x6E:
                    guard line[i...].starts(with: "null".utf8) else { throw Failure(reason: "invalid value") }
                    i += 4
                    value = .null
                case 0x2D, 0x30...0x39:
                    let start = i
                    if line[i] == 0x2D { i += 1 }
                    while i < end, (0x30...0x39).contains(line[i]) { i += 1 }
                    guard let number = Int64(String(decoding: line[start..<i], as: UTF8.self)) else {
                        throw Failure(reason: "invalid number")
                    }
                    value = .integer(number)
                default:
                    throw Failure(reason: "unsupported value")
                }
                try field(key, value)
                skipSpace()
                guard i < end else { throw Failure(reason: "unterminated object") }
                if line[i] == 0x2C {
                    i += 1
                    continue
                }
                try expect(0x7D, "'}'")
                break
            }
        }
        skipSpace()
        guard i == end else { throw Failure(reason: "trailing characters after the object") }
    }

    /// Decodes the escapes of a JSON string body. Returns `nil` on an invalid escape or invalid UTF-8.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String? {
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

    /// Appends `text` as a JSON string, escaping quotes, backslashes and control characters.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(0x22)
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

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}
