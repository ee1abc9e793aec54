/// What a release observer saw (`SecureBytes(_:releaseObserver:)`): each released buffer's
/// address and whether it was all zeros when it was shown, before it was freed.
public final class ReleaseLog: @unchecked Sendable {
    // @unchecked: the values a test observes are released on the test's own thread, so the
    // observer runs there too; nothing else touches this.
    public private(set) var seen: [(address: UInt, zeroed: Bool)] = []

    public init() {}

    /// The observer to hand to the value under test.
    public func observer() -> @Sendable (UnsafeRawBufferPointer) -> Void {
        { [self] buffer in
            seen.append((UInt(bitPattern: buffer.baseAddress), buffer.allSatisfy { $0 == 0 }))
        }
    }
}
