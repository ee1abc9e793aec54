#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive advisory lock on `<vault file>.lock`, held for one read-modify-write.
///
/// `flock` locks belong to the open file description, so the kernel releases them when the
/// process dies: a lock left by a killed `vault` never blocks the next command. The lock lives
/// on a separate file because the vault file itself is replaced by rename on every write.
final class FileLock {
    private let fd: Int32

    /// Blocks until the lock on `path` is held. Creates the lock file (0600) if needed.
    init(path: String) throws(VaultError) {
        fd = try syscall("open the lock file \(path)") {
            open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        do {
            try syscall("lock \(path)") { flock(fd, LOCK_EX) }
        } catch {
            close(fd)
            throw error
        }
    }

    /// Replaces the lock file's contents (vault keeps its header record there) and flushes them.
    func replaceContents(_ bytes: [UInt8]) throws(VaultError) {
        try syscall("truncate the lock file") { ftruncate(fd, 0) }
        let written = try syscall("write the lock file") {
            bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        guard written == bytes.count else { throw VaultError(.other, "cannot write the lock file: short write") }
        try syscall("flush the lock file") { fsync(fd) }
    }

    deinit {
        close(fd)  // releases the lock
    }
}
