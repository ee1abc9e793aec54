/// Strict, canonical standard base64 (RFC 4648 §4), as age requires.
///
/// The header uses the unpadded form; the ASCII armor uses the padded form. Both decoders reject
/// anything that would not be produced by the matching encoder: characters outside the alphabet
/// (including CR, LF and spaces), misplaced or missing padding, impossible lengths, and
/// non-zero unused bits in the last character (RFC 4648 §3.5).
package enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes without `=` padding (the header form).
    package static func encodeUnpadded(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encode(Array(bytes), padded: false), as: UTF8.self)
    }

    /// Encodes with `=` padding (the armor form), as ASCII bytes.
    package static func encodePadded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        encode(Array(bytes), padded: true)
    }

    /// Decodes canonical unpadded base64; nil if the text is not exactly what `encodeUnpadded` makes.
    package static func decodeUnpadded(_ text: some Collection<UInt8>) -> [UInt8]? {
        withBytes(of: text) { chars in
            guard chars.count % 4 != 1 else { return nil }
            return decodeIntoArray(chars)
        }
    }

    /// Decodes unpadded base64 given as a string (stanza arguments).
    package static func decodeUnpadded(_ text: some StringProtocol) -> [UInt8]? {
        decodeUnpadded(Array(text.utf8))
    }

    /// Decodes canonical padded base64; nil if the text is not exactly what `encodePadded` makes.
    package static func decodePadded(_ text: some Collection<UInt8>) -> [UInt8]? {
        withBytes(of: text) { chars in
            guard let unpadded = withoutPadding(chars) else { return nil }
            return decodeIntoArray(unpadded)
        }
    }

    /// Calls `body` with `text`'s bytes: in place when they are contiguous (arrays and their
    /// slices, what the callers pass), else copied. This code is generic across modules, so
    /// copying a slice into an `Array` goes through the standard library's unspecialised path,
    /// whose first run makes the runtime search the binary's protocol conformances (200,000
    /// instructions, 4% of a file `get`; docs/design.md, "Speed").
    private static func withBytes(
        of text: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> [UInt8]?
    ) -> [UInt8]? {
        if let result = text.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(text).withUnsafeBytes(body)
    }

    /// The most bytes the padded base64 `text` decodes to.
    package static func maximumDecodedCount(_ text: UnsafeRawBufferPointer) -> Int { text.count / 4 * 3 }

    /// Decodes canonical padded base64 into `output` (room for ``maximumDecodedCount(_:)``
    /// bytes); returns how many bytes it wrote, or nil if the text is not exactly what
    /// `encodePadded` makes (then `output` may hold part of the bytes).
    package static func decodePadded(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int?
    {
        guard let unpadded = withoutPadding(text) else { return nil }
        return decodeGroups(unpadded, into: output)
    }

    /// The padded text without its padding, or nil for an impossible length.
    private static func withoutPadding(_ text: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard text.count % 4 == 0 else { return nil }
        var end = text.count
        while end > 0, text.count - end < 2, text[end - 1] == UInt8(ascii: "=") { end -= 1 }
        // Any "=" left ("x===", "====", "a=bc") is outside the alphabet and fails when decoded.
        return UnsafeRawBufferPointer(rebasing: text[..<end])
    }

    private static func decodeIntoArray(_ chars: UnsafeRawBufferPointer) -> [UInt8]? {
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: chars.count * 3 / 4) { buffer, count in
            guard let written = decodeGroups(chars, into: UnsafeMutableRawBufferPointer(buffer)) else {
                failed = true
                count = 0
                return
            }
            count = written
        }
        return failed ? nil : output
    }

    /// Decodes characters with no padding into `output`, rejecting non-alphabet bytes and
    /// non-zero trailing bits; returns how many bytes it wrote.
    private static func decodeGroups(_ chars: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        -> Int?
    {
        var written = 0
        var accumulator: UInt32 = 0
        var bits = 0
        let ok: Bool = values.withUnsafeBufferPointer { values in
            for char in chars {
                let value = values[Int(char)]
                guard value != 0xFF else { return false }
                accumulator = (accumulator << 6) | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    guard written < output.count else { return false }
                    output[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    written += 1
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            return true
        }
        // Leftover bits (2 or 4) must be zero, or two encodings would decode to the same bytes.
        guard ok, accumulator == 0 else { return nil }
        return written
    }

    /// The length of the padded base64 of `count` bytes.
    package static func paddedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Writes the base64 of `bytes` to `output` (room for ``paddedCount(_:)`` characters when
    /// padded); returns how many characters it wrote.
    package static func encode(_ bytes: UnsafeRawBufferPointer, padded: Bool, into output: UnsafeMutableRawPointer)
        -> Int
    {
        alphabet.withUnsafeBufferPointer { alphabet in
            var written = 0
            var index = 0
            while index < bytes.count {
                let remaining = bytes.count - index
                let b0 = UInt32(bytes[index])
                let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
                let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
                let group = (b0 << 16) | (b1 << 8) | b2
                let charCount = min(remaining, 3) + 1
                for position in 0..<charCount {
                    output.storeBytes(
                        of: alphabet[Int((group >> UInt32(18 - 6 * position)) & 0x3F)], toByteOffset: written,
                        as: UInt8.self)
                    written += 1
                }
                if padded {
                    for _ in charCount..<4 {
                        output.storeBytes(of: UInt8(ascii: "="), toByteOffset: written, as: UInt8.self)
                        written += 1
                    }
                }
                index += 3
            }
            return written
        }
    }

    private static func encode(_ bytes: [UInt8], padded: Bool) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        return [UInt8](unsafeUninitializedCapacity: paddedCount(bytes.count)) { buffer, count in
            count = bytes.withUnsafeBytes {
                encode($0, padded: padded, into: UnsafeMutableRawPointer(buffer.baseAddress!))
            }
        }
    }
}
