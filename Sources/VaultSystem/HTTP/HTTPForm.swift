package import VaultSecureBytes

/// Percent-encoding for form bodies (`application/x-www-form-urlencoded`, WHATWG URL §5) and
/// URL path segments (RFC 3986).
package enum HTTPForm {
    /// `name=value&...`, each side form-encoded: letters, digits and `*-._` stay, a space
    /// becomes `+`, every other byte `%XX`. Secret bytes: a field may be a credential.
    package static func encode(_ fields: [(name: String, value: String)]) -> SecureBytes {
        var out = SecureBytes()
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(field.name.utf8, to: &out, keeping: formSafe, spaceAsPlus: true)
            out.append(UInt8(ascii: "="))
            append(field.value.utf8, to: &out, keeping: formSafe, spaceAsPlus: true)
        }
        return out
    }

    /// One URL path segment: RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay, every
    /// other byte (including `/`) becomes `%XX`.
    package static func pathSegment(_ text: String) -> String {
        var out: [UInt8] = []
        append(text.utf8, to: &out, keeping: unreserved, spaceAsPlus: false)
        return String(decoding: out, as: UTF8.self)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func formSafe(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_")
    }

    private static func unreserved(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    private static func append(
        _ bytes: some Sequence<UInt8>, to out: inout some RangeReplaceableCollection<UInt8>,
        keeping safe: (UInt8) -> Bool, spaceAsPlus: Bool
    ) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in bytes {
            if safe(byte) {
                out.append(byte)
            } else if spaceAsPlus && byte == 0x20 {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
