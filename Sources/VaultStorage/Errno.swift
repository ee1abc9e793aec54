#if canImport(Glibc)
    import Glibc
#endif

/// The error number of a failed system call, kept as data (after swift-system's `Errno`), so
/// that a caller can tell a full disk from a permission problem without reading message text.
public struct Errno: Error, Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The C `errno` value.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    package static var current: Errno { Errno(rawValue: errno) }

    /// `strerror`'s text: "No space left on device".
    public var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal arrived first; the call is retried.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `ENOSPC`.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `ELOOP`: also what `open` with `O_NOFOLLOW` fails with on a symbolic link.
    public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
}
