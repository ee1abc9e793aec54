import FoundationEssentials
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A service or account being looked for, compared with scanned names as cheaply as is exact.
///
/// Names compare as Swift strings (canonically equivalent Unicode is equal, as everywhere else
/// in vault). Equal bytes are equal strings; different bytes are different strings when both
/// sides are plain ASCII without escapes; only the remaining cases decode the scanned name.
struct NameNeedle {
    let text: String
    let bytes: [UInt8]
    let isASCII: Bool

    init(_ text: String) {
        self.text = text
        bytes = Array(text.utf8)
        isASCII = bytes.allSatisfy { $0 < 0x80 }
    }

    func matches(_ candidate: JSONLine.RawString) -> Bool {
        if !candidate.escaped {
            if candidate.raw.elementsEqual(bytes) { return true }
            if isASCII, candidate.raw.allSatisfy({ $0 < 0x80 }) { return false }
        }
        return candidate.string == text
    }

    /// Compares the string body that starts at `start` (after its opening quote) with this name.
    ///
    /// Returns where the body ends (its closing quote) and whether it is certainly this name or
    /// certainly another one; nil when it cannot tell without decoding (an escape, non-ASCII
    /// text that differs, a control character or no closing quote).
    func compare(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> (end: Int, same: Bool)? {
        var index = start
        var ascii = true
        while index < end {
            let byte = base[index]
            if byte == 0x22 { break }
            if byte == 0x5C || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        guard index < end else { return nil }
        if index - start == bytes.count, memcmp(base + start, bytes, bytes.count) == 0 { return (index, true) }
        return ascii && isASCII ? (index, false) : nil
    }
}

/// The name `get` looks for, with a fast test that rules out most other lines without scanning
/// them: the scan of 10,000 lines is most of a large vault's `get` after decryption.
struct RecordNeedle {
    let service: NameNeedle
    let account: NameNeedle
    /// How vault writes the start of this name's line: `{"service":"S","account":"A"`.
    private let expected: [UInt8]
    /// Where the service's and the account's string bodies begin in `expected`, and where each
    /// ends (the index of its closing quote).
    private let serviceStart: Int
    private let serviceEnd: Int
    private let accountStart: Int
    private let accountEnd: Int
    /// Whether both parts are ASCII and written without escapes, which lets a byte difference
    /// prove a name difference.
    private let plain: Bool

    init(_ name: SecretName) {
        service = NameNeedle(name.service)
        account = NameNeedle(name.account)
        var expected = Array("{\"service\":".utf8)
        serviceStart = expected.count + 1
        JSONString.append(name.service.utf8, to: &expected)
        serviceEnd = expected.count - 1
        expected += Array(",\"account\":".utf8)
        accountStart = expected.count + 1
        JSONString.append(name.account.utf8, to: &expected)
        accountEnd = expected.count - 1
        self.expected = expected
        plain = service.isASCII && account.isASCII && !expected.contains(0x5C)
    }

    /// Whether `line` is a record written the way vault writes it, for a name that is certainly
    /// not this one. False means "scan it in full": it may be this name, or it is written some
    /// other way, or it is damaged.
    ///
    /// The line is compared with how vault would write this name, eight bytes at a time. The first
    /// difference must fall inside the service's or the account's string (or at its closing
    /// quote), where the line's byte proves another name if it is plain ASCII: all before it was
    /// the same escape-free text, and a plain ASCII character is canonically equivalent only to
    /// itself. Then the rest of the line must have exactly vault's shape: the keys in vault's
    /// order, each once, every value a string of printable ASCII without escapes. So a line
    /// passed over here is a well-formed, complete record; any other line is scanned in full.
    func certainlyNot(_ line: JSONLine.Bytes) -> Bool {
        guard plain, let base = line.base.baseAddress else { return false }
        let start = line.startIndex
        let length = min(line.count, expected.count)
        let difference: Int = expected.withUnsafeBytes { wanted in
            var offset = 0
            while offset + 8 <= length {
                let a = UnsafeRawPointer(base + start + offset).loadUnaligned(as: UInt64.self)
                let b = wanted.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if a != b { return offset + (a ^ b).littleEndian.trailingZeroBitCount / 8 }
                offset += 8
            }
            while offset < length, base[start + offset] == wanted[offset] { offset += 1 }
            return offset
        }
        guard difference < line.count else { return false }
        let inService = (serviceStart...serviceEnd).contains(difference)
        guard inService || (accountStart...accountEnd).contains(difference) else { return false }
        var rest = PlainShape(base: base, index: start + difference, end: line.endIndex)
        guard rest.string() else { return false }
        if inService {
            guard rest.literal(Self.accountKey), rest.string() else { return false }
        }
        guard rest.literal(Self.valueKey), rest.string(), rest.literal(Self.createdKey), rest.string(),
            rest.literal(Self.updatedKey), rest.string()
        else { return false }
        if rest.literal(Self.expiresKey) {
            guard rest.string() else { return false }
        }
        if rest.literal(Self.kindKey) {
            guard rest.string() else { return false }
        }
        return rest.closingBrace() && rest.atEnd
    }

    private static let accountKey = Literal(",\"account\":\"")
    private static let valueKey = Literal(",\"value\":\"")
    private static let createdKey = Literal(",\"created\":\"")
    private static let updatedKey = Literal(",\"updated\":\"")
    private static let expiresKey = Literal(",\"expires\":\"")
    private static let kindKey = Literal(",\"kind\":\"")
}

/// A key of vault's own line shape, 8 to 16 bytes, compared with two unaligned 8-byte loads (its
/// first and last eight bytes) rather than a call to memcmp: five of them per line passed over.
private struct Literal {
    let count: Int
    let head: UInt64
    let tail: UInt64

    init(_ text: String) {
        let bytes = Array(text.utf8)
        precondition((8...16).contains(bytes.count), "a literal of 8 to 16 bytes")
        count = bytes.count
        head = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        tail = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self) }
    }
}

/// A cursor that accepts the rest of a line only in vault's own shape (see
/// ``RecordNeedle/certainlyNot(_:)``). Reads stay below `end`.
private struct PlainShape {
    let base: UnsafePointer<UInt8>
    var index: Int
    let end: Int

    var atEnd: Bool { index == end }

    /// Skips `literal` if the line continues with it.
    mutating func literal(_ literal: Literal) -> Bool {
        guard end - index >= literal.count else { return false }
        let start = UnsafeRawPointer(base + index)
        guard start.loadUnaligned(as: UInt64.self) == literal.head,
            start.loadUnaligned(fromByteOffset: literal.count - 8, as: UInt64.self) == literal.tail
        else { return false }
        index += literal.count
        return true
    }

    /// Skips a `}`.
    mutating func closingBrace() -> Bool {
        guard index < end, base[index] == UInt8(ascii: "}") else { return false }
        index += 1
        return true
    }

    /// Skips the rest of a string body and its closing quote; false for a control character, a
    /// backslash (an escape), a byte above 0x7F or a missing closing quote. The value's base64 is
    /// most of a line, so this goes eight bytes at a time (``ByteScan``).
    mutating func string() -> Bool {
        let stop = ByteScan.first(in: base, from: index, to: end) {
            ByteScan.equal($0, 0x22) | ByteScan.equal($0, 0x5C) | ByteScan.control($0) | ByteScan.nonASCII($0)
        }
        guard stop < end, base[stop] == 0x22 else { return false }
        index = stop + 1
        return true
    }
}
