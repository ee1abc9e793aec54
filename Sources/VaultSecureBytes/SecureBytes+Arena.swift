extension SecureBytes {
    /// Many small secrets written into shared buffers and handed out as slices: one allocation
    /// per buffer, not per value (the values of a vault document of 10,000 secrets).
    ///
    /// A slice keeps its whole buffer alive; the buffer is zeroed when the arena and the last
    /// slice of it are released. Writing to a slice copies it first, as for any shared value.
    public struct Arena {
        private var storage: Storage
        private var used = 0
        private let bufferSize: Int

        private let releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        /// An arena that allocates buffers of `bufferSize` bytes (larger for a larger value).
        public init(bufferSize: Int) {
            self.init(bufferSize: bufferSize, releaseObserver: nil)
        }

        /// An arena whose buffers are shown to `releaseObserver` once zeroed (for tests).
        init(bufferSize: Int, releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?) {
            self.bufferSize = Swift.max(bufferSize, 0)
            self.releaseObserver = releaseObserver
            storage = Storage(capacity: 0)
        }

        /// A new value of at most `maximumCount` bytes, written by `write` into the zeroed room
        /// it is given; `write` returns how many bytes it wrote, or nil to give up, in which case
        /// what it wrote is zeroed and nil is returned.
        public mutating func make<E: Error>(
            maximumCount: Int, _ write: (UnsafeMutableRawBufferPointer) throws(E) -> Int?
        ) throws(E) -> SecureBytes? {
            precondition(maximumCount >= 0)
            if storage.capacity - used < maximumCount {
                storage = Storage(capacity: Swift.max(maximumCount, bufferSize), releaseObserver: releaseObserver)
                used = 0
            }
            let room = UnsafeMutableRawBufferPointer(start: storage.base.map { $0 + used }, count: maximumCount)
            var written: Int?
            defer {
                // Whatever `write` left past its result (all of it, when it failed) is not kept.
                let kept = written ?? 0
                zeroSecret(UnsafeMutableRawBufferPointer(rebasing: room[kept...]))
            }
            written = try write(room)
            guard let count = written else { return nil }
            precondition(count >= 0 && count <= maximumCount, "an arena value wrote outside its room")
            defer { used += count }
            return SecureBytes(storage: storage, start: used, length: count)
        }
    }
}
