#if canImport(Glibc)
    import Glibc
#endif

/// Bytes that hold a secret: a copy-on-write buffer that overwrites its storage with zeros when
/// the last copy is released (after swift-crypto's `SecureBytes`), so callers never wipe by hand.
///
/// Growing copies into a larger buffer and zeroes the old one, so no part of the value is left
/// behind in freed memory. A value converted to or from `[UInt8]` leaves that array to its owner.
public struct SecureBytes: @unchecked Sendable {
    // @unchecked: the storage is only written through `mutableStorage()`, which copies it first
    // unless this value holds the only reference; shared storage is read-only, as an Array's is.
    var storage: Storage

    /// Empty bytes.
    public init() { storage = Storage(capacity: 0) }

    /// A copy of `bytes`.
    public init(_ bytes: some Sequence<UInt8>) {
        let done: Storage? = bytes.withContiguousStorageIfAvailable { Storage(copying: UnsafeRawBufferPointer($0)) }
        if let done {
            storage = done
        } else {
            storage = Storage(capacity: bytes.underestimatedCount)
            for byte in bytes { append(byte) }
        }
    }

    /// A copy of `bytes` whose storage, and that of every copy made from it, is shown to
    /// `releaseObserver` once zeroed, before it is freed (for tests).
    init(_ bytes: [UInt8], releaseObserver: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        storage = Storage(capacity: bytes.count, releaseObserver: releaseObserver)
        bytes.withUnsafeBytes { storage.append($0) }
    }

    /// The bytes of `array`, which is zeroed: how an array that held a secret (from an API that
    /// returns one) is handed over.
    public init(taking array: inout [UInt8]) {
        self.init(array)
        wipe(&array)
    }

    /// `count` zero bytes.
    public init(zeros count: Int) {
        storage = Storage(capacity: count)
        storage.count = count
    }

    /// The bytes, read in place.
    public func withUnsafeBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// The bytes, written in place (copied first if another value shares them).
    public mutating func withUnsafeMutableBytes<T, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> T
    ) throws(E) -> T {
        let storage = mutableStorage(capacity: count)
        return try body(UnsafeMutableRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// Appends `bytes` in one copy, growing by doubling: for plaintext that arrives in chunks.
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let needed = storage.count + bytes.count
        let capacity = needed > storage.capacity ? Swift.max(needed, storage.capacity * 2) : needed
        mutableStorage(capacity: capacity).append(bytes)
    }

    /// Room for `capacity` bytes without growing.
    public mutating func reserveCapacity(_ capacity: Int) { _ = mutableStorage(capacity: capacity) }

    /// The bytes in a new array, for an API that takes one; the caller owns (and wipes) the copy.
    public var unprotectedArray: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with the bytes in a temporary array, wiped when `body` returns: the boundary
    /// to an API that takes `[UInt8]`.
    public func withTemporaryArray<T, E: Error>(_ body: ([UInt8]) throws(E) -> T) throws(E) -> T {
        var array = unprotectedArray
        defer { wipe(&array) }
        return try body(array)
    }

    /// The storage, held by this value alone and with room for `capacity` bytes.
    mutating func mutableStorage(capacity: Int) -> Storage {
        if !isKnownUniquelyReferenced(&storage) || capacity > storage.capacity {
            let larger = Storage(capacity: Swift.max(capacity, storage.count), releaseObserver: storage.releaseObserver)
            larger.append(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
            storage = larger  // the old storage zeroes itself when its last holder lets go
        }
        return storage
    }
}

extension SecureBytes {
    /// The heap buffer behind ``SecureBytes``: zeroed with `explicit_bzero`, which the optimiser
    /// cannot drop as a dead store, before it is freed.
    final class Storage {
        let base: UnsafeMutableRawPointer?
        let capacity: Int
        var count = 0
        /// Called with the buffer once it is zeroed, before it is freed, and passed on to the
        /// copies made from it: lets a test observe releases without reading freed memory.
        let releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        init(capacity: Int, releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil) {
            self.capacity = capacity
            self.releaseObserver = releaseObserver
            base = capacity > 0 ? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16) : nil
            base?.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        }

        convenience init(copying bytes: UnsafeRawBufferPointer) {
            self.init(capacity: bytes.count)
            append(bytes)
        }

        func append(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, let base, !bytes.isEmpty else { return }
            precondition(count + bytes.count <= capacity)
            (base + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }

        deinit {
            guard let base else { return }
            zeroSecret(UnsafeMutableRawBufferPointer(start: base, count: capacity))
            releaseObserver?(UnsafeRawBufferPointer(start: base, count: capacity))
            base.deallocate()
        }
    }
}

/// Overwrites memory that held a secret with zeros, in a way the optimiser cannot drop.
/// ``SecureBytes`` uses it on release; it is exposed for buffers that C owns.
public func zeroSecret(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    explicit_bzero(base, bytes.count)
}
