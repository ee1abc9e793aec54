import VaultSecureBytes

/// RFC 4648 base32, the alphabet otpauth:// URIs carry seeds in.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes `text`: letters in either case, `=` padding optional but, when present, making a
    /// whole number of 8-character groups. Nil for any other character, for a length no bytes
    /// encode to (1, 3 or 6 characters past a whole group), or for no bytes at all.
    static func decode(_ text: some Collection<UInt8>) -> SecureBytes? {
        var out = SecureBytes()
        out.reserveCapacity(text.count * 5 / 8 + 1)
        var buffer: UInt32 = 0
        var bits = 0
        var characters = 0
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = byte - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            characters += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        buffer = 0
        guard characters > 0, [0, 2, 4, 5, 7].contains(characters % 8) else { return nil }
        guard padding == 0 || (padding < 8 && (characters + padding) % 8 == 0) else { return nil }
        return out
    }

    /// `bytes` in upper-case base32 without padding, appended to `out`.
    static func append(_ bytes: SecureBytes, to out: inout SecureBytes) {
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        buffer = 0
    }
}
