#if canImport(Glibc)
    import Glibc
#endif

/// A point in time on the monotonic clock by which a whole exchange must be over: several
/// requests (a redirect, the next node, a login), or the retries of a store write after a
/// refresh, share one deadline, so that a command never runs past `VAULT_TIMEOUT`.
public struct Deadline: Sendable {
    private var end: UInt64

    /// The deadline `seconds` from now.
    public init(seconds: Double) {
        end = Self.now() &+ UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// Milliseconds left, at least 0.
    public var remainingMilliseconds: Int {
        let now = Self.now()
        return now >= end ? 0 : Int((end - now + 999_999) / 1_000_000)
    }

    /// Whether the time is up.
    public var hasPassed: Bool { Self.now() >= end }

    /// This deadline, `seconds` later.
    public func extended(by seconds: Double) -> Deadline {
        var later = self
        later.end = end &+ UInt64(max(0, seconds) * 1_000_000_000)
        return later
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// `5` for 5.0, `0.5` for 0.5: how a time-out appears in messages.
package func formatSeconds(_ seconds: Double) -> String {
    if seconds.isFinite, seconds == seconds.rounded(), abs(seconds) < 1e15 {
        return String(Int64(seconds))
    }
    return String(seconds)
}
