package import VaultSecureBytes

/// Writes JSON string literals: the one escaper behind the vault document, `vault export --format
/// json` and the `--json` output (docs/json.md), so that all of them quote a name alike.
///
/// Escaped: `"` and `\`, and the control characters (below 0x20, and DEL) as `\n`, `\r`, `\t` or
/// `\u00XX` in lower-case hex. Every other byte is written as it is: non-ASCII UTF-8 stays UTF-8,
/// and U+2028 and U+2029, which JSON allows in a string, are not escaped.
package enum JSONString {
    /// Appends `text` as a quoted JSON string to `out`: the vault document's names and kinds.
    ///
    /// A concrete form for the callers in other targets (the age file's document): a generic
    /// function called from another target is not specialised there, and its first call looks
    /// the argument types' conformances up at run time, a scan of the binary's conformance
    /// tables on every `get` (design.md, "Speed"). Within this target, the generic form is.
    package static func append(_ text: String.UTF8View, to out: inout [UInt8]) {
        appendQuoted(text, to: &out)
    }

    /// Appends `utf8`, UTF-8 text, as a quoted JSON string, to an array or to ``SecureBytes``.
    package static func append(_ utf8: some Sequence<UInt8>, to out: inout some RangeReplaceableCollection<UInt8>) {
        appendQuoted(utf8, to: &out)
    }

    private static func appendQuoted(_ utf8: some Sequence<UInt8>, to out: inout some RangeReplaceableCollection<UInt8>)
    {
        // Text with nothing to escape (every name vault writes, as a rule) is copied in one piece.
        let copied: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) else { return false }
            out.append(0x22)
            out.append(contentsOf: bytes)
            out.append(0x22)
            return true
        }
        if copied == true { return }
        out.append(0x22)
        for byte in utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30])  // \u00
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }

    /// `text` as a quoted JSON string.
    package static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        append(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `utf8`, UTF-8 text, as the bytes of a quoted JSON string.
    package static func quoted(_ utf8: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        append(utf8, to: &out)
        return out
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// Writes one JSON object, member by member, in the order given, into ``SecureBytes``: the
/// companion of a living token and the refresh journal hold tokens. The buffer is reserved up
/// front, so that it is rarely outgrown (an outgrown one zeroes itself all the same).
package struct JSONObjectWriter {
    private var bytes = SecureBytes()

    /// `capacity`: enough for every member, with each string's bytes escaped (six bytes each).
    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
        bytes.append(0x7B)  // {
    }

    /// A member whose value is `utf8`, UTF-8 text, as a JSON string.
    package mutating func string(_ key: String, _ utf8: some Sequence<UInt8>) {
        member(key)
        JSONString.append(utf8, to: &bytes)
    }

    /// A member whose value is `value`, as a JSON number.
    package mutating func number(_ key: String, _ value: Int64) {
        member(key)
        bytes += String(value).utf8
    }

    /// The object, closed.
    package mutating func finish() -> SecureBytes {
        bytes.append(0x7D)  // }
        return bytes
    }

    private mutating func member(_ key: String) {
        if bytes.count > 1 { bytes.append(0x2C) }  // ,
        JSONString.append(key.utf8, to: &bytes)
        bytes.append(0x3A)  // :
    }
}
