public import FoundationEssentials

/// Bytes that hold a secret: a copy-on-write buffer that overwrites its storage with zeros when
/// the last copy is released (after swift-crypto's `SecureBytes`), so callers never wipe by hand.
///
/// Growing copies into a larger buffer and zeroes the old one, so no part of the value is left
/// behind in freed memory. A value converted to or from `[UInt8]` leaves that array to its owner.
/// A value may be a slice of a buffer it shares with others (``SecureBytes/Arena``): the buffer
/// is zeroed when the last of them is released.
public struct SecureBytes: @unchecked Sendable {
    // @unchecked: the storage is only written through `makeUnique(capacity:)`, which copies it
    // first unless this value holds the only reference and starts at its beginning; shared
    // storage is read-only, as an Array's is. An arena writes only the part of its buffer it has
    // not yet handed out, which no other value reads.
    @usableFromInline var storage: Storage
    /// Where this value's bytes begin in `storage`: not 0 only for a slice of a shared buffer.
    @usableFromInline var start: Int
    /// How many bytes this value holds. Kept here, not in the class, so that reading it needs no
    /// dynamic exclusivity check (the class has only constants).
    @usableFromInline var length: Int

    @usableFromInline init(storage: Storage, start: Int, length: Int) {
        self.storage = storage
        self.start = start
        self.length = length
    }

    /// Empty bytes.
    public init() { self.init(storage: Storage(capacity: 0), start: 0, length: 0) }

    /// A copy of `bytes`.
    public init(_ bytes: some Sequence<UInt8>) {
        let done: SecureBytes? = bytes.withContiguousStorageIfAvailable {
            SecureBytes(copying: UnsafeRawBufferPointer($0))
        }
        if let done {
            self = done
        } else {
            self = SecureBytes(storage: Storage(capacity: bytes.underestimatedCount), start: 0, length: 0)
            for byte in bytes { append(byte) }
        }
    }

    /// A copy of `bytes`, in a buffer of exactly their size.
    public init(copying bytes: UnsafeRawBufferPointer) {
        self.init(storage: Storage(capacity: bytes.count, copying: bytes), start: 0, length: bytes.count)
    }

    /// A copy of `bytes` whose storage, and that of every copy made from it, is shown to
    /// `releaseObserver` once zeroed, before it is freed (for tests).
    init(_ bytes: [UInt8], releaseObserver: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        let storage = bytes.withUnsafeBytes {
            Storage(capacity: bytes.count, copying: $0, releaseObserver: releaseObserver)
        }
        self.init(storage: storage, start: 0, length: bytes.count)
    }

    /// The bytes of `array`, which is zeroed: how an array that held a secret (from an API that
    /// returns one) is handed over.
    public init(taking array: inout [UInt8]) {
        self.init(array)
        wipe(&array)
    }

    /// The bytes of `data`, which is zeroed: how a plaintext from swift-crypto is handed over.
    public init(taking data: inout Data) {
        self.init(data)
        wipe(&data)
    }

    /// `count` zero bytes.
    public init(zeros count: Int) {
        self.init(storage: Storage(capacity: count), start: 0, length: count)
    }

    /// The bytes, read in place.
    @inlinable
    public func withUnsafeBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: storage.base.map { $0 + start }, count: length))
    }

    /// The bytes, written in place (copied first if another value shares them).
    public mutating func withUnsafeMutableBytes<T, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> T
    ) throws(E) -> T {
        makeUnique(capacity: length)
        return try body(UnsafeMutableRawBufferPointer(start: storage.base, count: length))
    }

    /// Appends `bytes` in one copy, growing by doubling: for plaintext that arrives in chunks.
    @inlinable
    public mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = length + bytes.count
        makeUnique(capacity: end > storage.capacity ? Swift.max(end, storage.capacity * 2) : end)
        (storage.base.unsafelyUnwrapped + length).copyMemory(from: source, byteCount: bytes.count)
        length = end
    }

    /// Appends one byte, growing by doubling.
    @inlinable
    public mutating func append(_ byte: UInt8) {
        let end = length + 1
        makeUnique(capacity: end > storage.capacity ? Swift.max(end, storage.capacity * 2) : end)
        storage.base.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: length, as: UInt8.self)
        length = end
    }

    /// Room for `capacity` bytes without growing.
    public mutating func reserveCapacity(_ capacity: Int) { makeUnique(capacity: capacity) }

    /// The bytes in a new array, for an API that takes one; the caller owns (and wipes) the copy.
    public var unprotectedArray: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with the bytes in a temporary array, wiped when `body` returns: the boundary
    /// to an API that takes `[UInt8]`.
    public func withTemporaryArray<T, E: Error>(_ body: ([UInt8]) throws(E) -> T) throws(E) -> T {
        var array = unprotectedArray
        defer { wipe(&array) }
        return try body(array)
    }

    /// Makes the storage this value's alone, starting at its bytes, with room for `capacity`.
    @inlinable
    mutating func makeUnique(capacity: Int) {
        if start != 0 || capacity > storage.capacity || !isKnownUniquelyReferenced(&storage) {
            moveToNewStorage(capacity: capacity)
        }
    }

    @usableFromInline
    mutating func moveToNewStorage(capacity: Int) {
        // The old storage zeroes itself when its last holder lets go.
        storage = withUnsafeBytes { bytes in
            Storage(capacity: Swift.max(capacity, length), copying: bytes, releaseObserver: storage.releaseObserver)
        }
        start = 0
    }
}

extension SecureBytes {
    /// The heap buffer behind ``SecureBytes``: zeroed (``zeroSecret(_:)``) before it is freed. It holds only constants; the values that
    /// share it say which of its bytes are theirs.
    @usableFromInline final class Storage {
        @usableFromInline let base: UnsafeMutableRawPointer?
        @usableFromInline let capacity: Int
        /// Called with the buffer once it is zeroed, before it is freed, and passed on to the
        /// copies made from it: lets a test observe releases without reading freed memory.
        let releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        /// A buffer of `capacity` bytes that starts with a copy of `bytes`; the rest is zeros.
        init(
            capacity: Int, copying bytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
            releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
        ) {
            precondition(bytes.count <= capacity)
            self.capacity = capacity
            self.releaseObserver = releaseObserver
            guard capacity > 0 else {
                base = nil
                return
            }
            let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            if let source = bytes.baseAddress { base.copyMemory(from: source, byteCount: bytes.count) }
            (base + bytes.count).initializeMemory(as: UInt8.self, repeating: 0, count: capacity - bytes.count)
            self.base = base
        }

        deinit {
            guard let base else { return }
            zeroSecret(UnsafeMutableRawBufferPointer(start: base, count: capacity))
            releaseObserver?(UnsafeRawBufferPointer(start: base, count: capacity))
            base.deallocate()
        }
    }
}
