package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

// The one place where a failed system call becomes a ``VaultError``, for the library and the
// command-line tool alike (swift-system's `valueOrErrno(retryOnInterrupt:)` is the model):
// `valueOrErrno` retries `EINTR` and keeps the ``Errno``; `syscall` makes it an error whose
// message reads as one line, `cannot rename /x/.vault.age.tmp: Permission denied`, and whose
// ``VaultError/errno`` tells ENOSPC from EACCES.

/// Calls `body` (a C call that returns -1 and sets `errno` on failure) until it succeeds or
/// fails with something other than `EINTR` (any failure, without `retryOnInterrupt`).
package func valueOrErrno<T: BinaryInteger>(retryOnInterrupt: Bool = true, _ body: () -> T) -> Result<T, Errno> {
    while true {
        let result = body()
        if result >= 0 { return .success(result) }
        let code = Errno.current
        if retryOnInterrupt, code == .interrupted { continue }
        return .failure(code)
    }
}

/// Calls `body` as ``valueOrErrno(retryOnInterrupt:_:)`` does; a failure throws ``systemError(_:_:code:)``.
@discardableResult
package func syscall<T: BinaryInteger>(
    _ what: @autoclosure () -> String, code: VaultError.Code = .other, _ body: () -> T
) throws(VaultError) -> T {
    switch valueOrErrno(body) {
    case .success(let value): return value
    case .failure(let errno): throw systemError(what(), errno, code: code)
    }
}

/// Like ``syscall(_:code:_:)``, but a failure with `tolerated` (a missing file, an existing
/// directory) returns nil.
package func syscall<T: BinaryInteger>(
    _ what: @autoclosure () -> String, unless tolerated: Errno, _ body: () -> T
) throws(VaultError) -> T? {
    switch valueOrErrno(body) {
    case .success(let value): return value
    case .failure(tolerated): return nil
    case .failure(let errno): throw systemError(what(), errno)
    }
}

/// The error for a failed call: `cannot WHAT: strerror`, with the ``Errno`` kept.
package func systemError(_ what: String, _ errno: Errno, code: VaultError.Code = .other) -> VaultError {
    VaultError(code, "cannot \(what): \(errno)", errno: errno)
}
