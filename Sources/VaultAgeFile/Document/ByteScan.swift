/// Finds bytes in a buffer eight at a time (SWAR, SIMD within a register) for the document
/// scanners, ``JSONLine`` and ``RecordNeedle``: a line is mostly base64 and timestamps, and a
/// byte loop over 10,000 lines cost as much as decrypting them.
///
/// A mask maps a little-endian 64-bit word to one with the high bit (0x80) of each byte it looks
/// for set. Only the lowest flag of a mask is exact (a borrow runs upward and may flag a byte
/// above a flagged one), and so is the lowest of several masks or-ed together; that is all
/// ``first(in:from:to:where:)`` uses.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Flags the bytes equal to `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// Flags the bytes below 0x20: control characters.
    @inline(__always)
    static func control(_ word: UInt64) -> UInt64 { (word &- ones &* 0x20) & ~word & highs }

    /// Flags the bytes above 0x7F: parts of non-ASCII UTF-8.
    @inline(__always)
    static func nonASCII(_ word: UInt64) -> UInt64 { word & highs }

    /// The index of the first byte from `index` to `end` that `mask` flags, or `end`.
    ///
    /// `base` is the start of the buffer (bytes `0..<end` are readable), not of the range.
    @inline(__always)
    static func first(
        in base: UnsafePointer<UInt8>, from index: Int, to end: Int, where mask: (UInt64) -> UInt64
    ) -> Int {
        var index = index
        // Two words a turn: one test and one loop step for 16 bytes. Each word's flags are its
        // own, so the lower word's lowest flag, else the upper word's, is exact.
        while end &- index >= 16 {
            let words = UnsafeRawPointer(base + index)
            let low = mask(UInt64(littleEndian: words.loadUnaligned(as: UInt64.self)))
            let high = mask(UInt64(littleEndian: words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            if low | high != 0 {
                return index &+ (low != 0 ? low.trailingZeroBitCount : 64 &+ high.trailingZeroBitCount) / 8
            }
            index &+= 16
        }
        if end &- index >= 8 {
            let flags = mask(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
            if flags != 0 { return index &+ flags.trailingZeroBitCount / 8 }
            index &+= 8
        }
        let left = end - index
        guard left > 0 else { return end }
        if end >= 8 {
            // The last 1 to 7 bytes in one word: the eight that end at `end` (earlier bytes of the
            // buffer, already scanned or before the range), shifted down so that the left ones are
            // its lowest bytes and zeros fill the top. The zeros may be flagged, but above every
            // left byte, so the lowest flag among the left bytes is still exact. Byte by byte,
            // these tails (the end of each timestamp and name) cost as much as the words before.
            let drop = UInt64(8 * (8 - left))
            let word = UInt64(littleEndian: UnsafeRawPointer(base + end - 8).loadUnaligned(as: UInt64.self)) >> drop
            let flags = mask(word) & (highs >> drop)
            return flags != 0 ? index + flags.trailingZeroBitCount / 8 : end
        }
        // A buffer shorter than a word: one byte at a time, each alone in the lowest byte of a
        // word, where a flag is exact.
        while index < end, mask(UInt64(base[index])) & 0x80 == 0 { index += 1 }
        return index
    }
}
