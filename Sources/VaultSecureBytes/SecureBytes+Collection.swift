extension SecureBytes: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { length }
    @inlinable public var count: Int { length }

    public subscript(position: Int) -> UInt8 {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return withUnsafeBytes { $0[position] }
        }
        set {
            precondition(position >= 0 && position < count, "index out of range")
            withUnsafeMutableBytes { $0[position] = newValue }
        }
    }

    public mutating func replaceSubrange(_ range: Range<Int>, with bytes: some Collection<UInt8>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of bounds")
        let old = count
        let new = old - range.count + bytes.count
        guard new > 0 else {
            self = SecureBytes()  // the old storage zeroes itself when released
            return
        }
        // Grows by doubling, so appending byte by byte copies (and zeroes) O(log n) buffers.
        makeUnique(capacity: new > storage.capacity ? Swift.max(new, storage.capacity * 2) : new)
        let base = storage.base!
        // Moves the tail, then writes the new bytes where the range was.
        (base + range.lowerBound + bytes.count).copyMemory(
            from: base + range.upperBound, byteCount: old - range.upperBound)
        var offset = range.lowerBound
        for byte in bytes {
            base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        if new < old {
            // The bytes now past the end still held part of the secret.
            zeroSecret(UnsafeMutableRawBufferPointer(start: base + new, count: old - new))
        }
        length = new
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try withUnsafeBytes { raw in try raw.withMemoryRebound(to: UInt8.self) { try body($0) } }
    }
}

extension SecureBytes: Equatable, Hashable {
    /// Compares in time that depends only on the lengths, not on where the bytes first differ.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in constantTimeEqual(left, right) } }
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Whether the bytes are those of `array`, compared as ``==(_:_:)`` does.
    public static func == (lhs: SecureBytes, rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in constantTimeEqual(left, right) } }
    }

    public static func == (lhs: [UInt8], rhs: SecureBytes) -> Bool { rhs == lhs }
    public static func != (lhs: SecureBytes, rhs: [UInt8]) -> Bool { !(lhs == rhs) }
    public static func != (lhs: [UInt8], rhs: SecureBytes) -> Bool { !(rhs == lhs) }

    private static func constantTimeEqual(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<left.count { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// The length only: printing a value never shows the secret.
    public var description: String { "\(count) secret bytes" }
    public var debugDescription: String { description }
}

/// Whether both are absent, or both hold the same bytes (a store's optional value and an array).
public func == (lhs: SecureBytes?, rhs: [UInt8]?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let left?, let right?): return left == right
    default: return false
    }
}
