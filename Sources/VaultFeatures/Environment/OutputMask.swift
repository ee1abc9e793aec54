import VaultSecureBytes
package import VaultSystem

/// What `vault exec` hides in its command's output: each value it injected and the forms tools
/// print values in, all found by one ``MaskAutomaton``.
package struct OutputMask {
    /// Values shorter than this are not masked: a value of one to three bytes ("1", "yes", "dev")
    /// is found all over ordinary output, so masking it would hide unrelated text and, by where
    /// `***` appears, tell the value anyway; and so short a value is guessed, not stolen.
    package static let minimumLength = 4

    /// The automaton of every form of every value long enough.
    package let automaton: MaskAutomaton
    /// The variables whose value is too short to mask (and not empty), in the order given.
    package let tooShort: [String]

    /// The mask of `values`; an empty value shows nothing and is left out silently.
    package init(values: [(variable: String, value: [UInt8])]) {
        var patterns: [[UInt8]] = []
        var tooShort: [String] = []
        for (variable, value) in values where !value.isEmpty {
            if value.count < Self.minimumLength {
                if !tooShort.contains(variable) { tooShort.append(variable) }
            } else {
                patterns += Self.forms(of: value)
            }
        }
        automaton = MaskAutomaton(patterns: patterns)
        self.tooShort = tooShort
        for index in patterns.indices { wipe(&patterns[index]) }
    }

    /// The byte strings `value` may be printed as, each at least ``minimumLength`` long, without
    /// repeats: the value itself; each of its lines (a PEM key is printed line by line); its
    /// standard and URL-safe base64, and those of the value followed by a newline (`echo $TOKEN
    /// | base64`), whole with padding and, for base64 inside a longer text, the characters that
    /// depend on the value alone at each of the three alignments; its percent-encoding (RFC
    /// 3986, upper-case hex); its JSON string escape (without the quotes); its lower-case hex.
    package static func forms(of value: [UInt8]) -> [[UInt8]] {
        var forms: [[UInt8]] = [value]
        for line in value.split(separator: UInt8(ascii: "\n")) {
            forms.append(Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]))
        }
        let withNewline = value + [UInt8(ascii: "\n")]
        for alphabet in [Base64Form.standard, Base64Form.urlSafe] {
            for bytes in [value, withNewline] {
                forms.append(Base64Form.encode(bytes, alphabet, padded: true))
                for offset in 0..<3 { forms.append(Base64Form.fragment(of: bytes, at: offset, alphabet)) }
            }
        }
        forms.append(percentEncoded(value))
        forms.append(Array(JSONString.quoted(value).dropFirst().dropLast()))
        forms.append(value.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0xF)]] })
        var seen = Set<[UInt8]>()
        return forms.filter { $0.count >= minimumLength && seen.insert($0).inserted }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// RFC 3986 percent-encoding: every byte but the unreserved ones as `%XX`.
    private static func percentEncoded(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for byte in value {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), upperHexDigits[Int(byte >> 4)], upperHexDigits[Int(byte & 0xF)]]
            }
        }
        return out
    }
}

/// Base64 (RFC 4648 §4 and §5) for the mask's patterns.
enum Base64Form {
    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8], _ alphabet: [UInt8], padded: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group: UInt32 = 0
            for (position, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * position) }
            for position in 0..<(chunk.count + 1) { out.append(alphabet[Int(group >> (18 - 6 * position) & 0x3F)]) }
            if padded { out += [UInt8](repeating: UInt8(ascii: "="), count: 3 - chunk.count) }
            index += 3
        }
        return out
    }

    /// The characters of the base64 of a text where `bytes` start `offset` bytes after a
    /// multiple of three, that depend on `bytes` alone (not on what is before or after them).
    static func fragment(of bytes: [UInt8], at offset: Int, _ alphabet: [UInt8]) -> [UInt8] {
        let encoded = encode([UInt8](repeating: 0, count: offset) + bytes, alphabet, padded: false)
        // Character j holds bits 6j..<6j+6 of the text; the value's are 8·offset..<8·(offset+count).
        let first = (8 * offset + 5) / 6
        let end = 8 * (offset + bytes.count) / 6
        return first < end ? Array(encoded[first..<end]) : []
    }
}
