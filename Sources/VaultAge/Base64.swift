/// Strict, canonical standard base64 (RFC 4648 §4), as age requires.
///
/// The header uses the unpadded form; the ASCII armor uses the padded form. Both decoders reject
/// anything that would not be produced by the matching encoder: characters outside the alphabet
/// (including CR, LF and spaces), misplaced or missing padding, impossible lengths, and
/// non-zero unused bits in the last character (RFC 4648 §3.5).
enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes without `=` padding (the header form).
    static func encodeUnpadded(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encode(Array(bytes), padded: false), as: UTF8.self)
    }

    /// Encodes with `=` padding (the armor form), as ASCII bytes.
    static func encodePadded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        encode(Array(bytes), padded: true)
    }

    /// Decodes canonical unpadded base64; nil if the text is not exactly what `encodeUnpadded` makes.
    static func decodeUnpadded(_ text: some Collection<UInt8>) -> [UInt8]? {
        let chars = Array(text)
        guard chars.count % 4 != 1 else { return nil }
        return decodeGroups(chars)
    }

    /// Decodes unpadded base64 given as a string (stanza arguments).
    static func decodeUnpadded(_ text: some StringProtocol) -> [UInt8]? {
        decodeUnpadded(Array(text.utf8))
    }

    /// Decodes canonical padded base64; nil if the text is not exactly what `encodePadded` makes.
    static func decodePadded(_ text: some Collection<UInt8>) -> [UInt8]? {
        var chars = Array(text)
        guard chars.count % 4 == 0 else { return nil }
        var padding = 0
        while padding < 2, let last = chars.last, last == UInt8(ascii: "=") {
            chars.removeLast()
            padding += 1
        }
        // Any "=" left ("x===", "====", "a=bc") is outside the alphabet and fails below.
        return decodeGroups(chars)
    }

    /// Decodes characters with no padding, rejecting non-alphabet bytes and non-zero trailing bits.
    private static func decodeGroups(_ chars: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(chars.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for char in chars {
            let value = values[Int(char)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits (2 or 4) must be zero, or two encodings would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return output
    }

    private static func encode(_ bytes: [UInt8], padded: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = (b0 << 16) | (b1 << 8) | b2
            let charCount = min(remaining, 3) + 1
            for position in 0..<charCount {
                output.append(alphabet[Int((group >> UInt32(18 - 6 * position)) & 0x3F)])
            }
            if padded {
                for _ in charCount..<4 { output.append(UInt8(ascii: "=")) }
            }
            index += 3
        }
        return output
    }
}
