/// Finds bytes in a buffer eight at a time (SWAR, SIMD within a register) for the document
/// scanners, ``JSONLine`` and ``RecordNeedle``: a line is mostly base64 and timestamps, and a
/// byte loop over 10,000 lines cost as much as decrypting them.
///
/// A mask maps a little-endian 64-bit word to one with the high bit (0x80) of each byte it looks
/// for set. Only the lowest flag of a mask is exact (a borrow runs upward and may flag a byte
/// above a flagged one), and so is the lowest of several masks or-ed together; that is all
/// ``first(in:from:to:where:)`` uses.
package enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Flags the bytes equal to `byte`.
    @inline(__always)
    package static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// Flags the bytes below 0x20: control characters.
    @inline(__always)
    package static func control(_ word: UInt64) -> UInt64 { (word &- ones &* 0x20) & ~word & highs }

    /// Flags the bytes above 0x7F: parts of non-ASCII UTF-8.
    @inline(__always)
    package static func nonASCII(_ word: UInt64) -> UInt64 { word & highs }

    /// The index of the first byte from `index` to `end` that `mask` flags, or `end`.
    @inline(__always)
    package static func first(
        in base: UnsafePointer<UInt8>, from index: Int, to end: Int, where mask: (UInt64) -> UInt64
    ) -> Int {
        var index = index
        while end - index >= 8 {
            let flags = mask(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
            if flags != 0 { return index + flags.trailingZeroBitCount / 8 }
            index += 8
        }
        // The last bytes one at a time, each alone in the lowest byte of a word, where a flag is exact.
        while index < end, mask(UInt64(base[index])) & 0x80 == 0 { index += 1 }
        return index
    }
}
