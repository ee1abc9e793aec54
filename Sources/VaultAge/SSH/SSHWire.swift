/// Reads the SSH wire encoding (RFC 4251 section 5): `uint32` big-endian, `string` (a length and
/// that many bytes), `mpint` (a string holding a two's-complement big-endian integer).
///
/// Every read checks the remaining length first; a malformed blob is nil, never a trap, because
/// the bytes come from a file anyone may have written.
struct SSHReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    /// The bytes not read yet.
    var remaining: ArraySlice<UInt8> { bytes[offset...] }

    mutating func uint32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        let value = bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        offset += 4
        return value
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32(), bytes.count - offset >= Int(length) else { return nil }
        let value = Array(bytes[offset..<(offset + Int(length))])
        offset += Int(length)
        return value
    }

    /// A string that must be UTF-8 text (a key type, a cipher name).
    mutating func text() -> String? {
        string().flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// A non-negative mpint, as its magnitude without leading zeros.
    mutating func positiveInteger() -> [UInt8]? {
        guard let value = string() else { return nil }
        if let first = value.first, first & 0x80 != 0 { return nil }
        return Array(value.drop { $0 == 0 })
    }

    /// Exactly `count` raw bytes.
    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}

/// Writes the SSH wire encoding, for the public key blobs vault computes tags from.
struct SSHWriter {
    private(set) var bytes: [UInt8] = []

    mutating func string(_ value: some Collection<UInt8>) {
        let count = UInt32(value.count)
        bytes += [
            UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count),
        ]
        bytes += value
    }

    /// A non-negative integer given as big-endian magnitude bytes.
    mutating func positiveInteger(_ magnitude: [UInt8]) {
        let trimmed = Array(magnitude.drop { $0 == 0 })
        string((trimmed.first.map { $0 & 0x80 != 0 } ?? false) ? [0] + trimmed : trimmed)
    }
}
