#if canImport(Glibc)
    import Glibc
#endif

/// The one place where a failed system call becomes a ``VaultError``.
///
/// Retries `EINTR`; otherwise throws with the operation, the path and `strerror`'s text, so that
/// every I/O failure reads as one line: `cannot rename /x/.vault.age.tmp: Permission denied`.
@discardableResult
func syscall<T: BinaryInteger>(
    _ what: @autoclosure () -> String, _ body: () -> T
) throws(VaultError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw systemError(what(), errno: code)
    }
}

/// Builds the error for a failed call: permission problems and a full disk keep their own text.
func systemError(_ what: String, errno code: Int32) -> VaultError {
    VaultError(.other, "cannot \(what): \(String(cString: strerror(code)))")
}
