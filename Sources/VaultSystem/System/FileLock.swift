package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive locks held for one read-modify-write of a vault file.
///
/// The lock that serialises writers is an `flock` on the directory holding the vault file: a
/// directory cannot be unlinked while the vault's files are in it, so whatever is deleted beside
/// the vault, every writer locks the same object. (A lock on `<file>.lock` alone was not enough:
/// once that file was deleted, the next writer created a new one and went straight in beside a
/// writer still holding the old one, and one of the two updates was lost.) `<file>.lock` is locked
/// too, after the directory, so that vault 1.0 writers still wait for this one; it also keeps the
/// header record (``HeaderRecord``).
///
/// `flock` locks belong to the open file description, so the kernel releases them when the
/// process dies: a lock left by a killed `vault` never blocks the next command.
///
/// The wait for these locks is not bounded by `VAULT_TIMEOUT`, unlike ``LockFile``'s for a
/// refresh: writers of one vault queue here behind each other, each holding the lock for a key
/// derivation and a write, and a queue of twenty is correct work, not a hang.
package final class FileLock {
    /// The vault file's directory, open and locked; the write is made relative to it, so the
    /// directory is resolved once.
    let directory: Int32
    /// The vault file's name in ``directory``.
    let fileName: String
    /// The vault file's path, symbolic links resolved.
    package let path: String
    private let fd: Int32

    /// Blocks until the locks for the vault file `path` are held. Creates `<path>.lock` (0600)
    /// if needed; when running as root, gives it the vault file's owner, so that `sudo vault set`
    /// never leaves the owner a lock file they cannot open.
    package init(file path: String) throws(VaultError) {
        let directoryPath = FileSystem.directory(of: path)
        let fileName = FileSystem.baseName(of: path)
        let directory = try syscall("open the directory \(directoryPath)") {
            open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        let fd: Int32
        do {
            try Self.lockDirectory(directory, directoryPath)
            fd = try syscall("open the lock file \(path).lock") {
                open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
        } catch {
            close(directory)
            throw error
        }
        do {
            try syscall("lock \(path).lock") { flock(fd, LOCK_EX) }
            if let owner = FileSystem.ownerToKeep(directory, fileName) {
                try syscall("give \(path).lock to the vault file's owner") { fchown(fd, owner.uid, owner.gid) }
            }
        } catch {
            close(fd)
            close(directory)
            throw error
        }
        self.path = path
        self.fileName = fileName
        self.directory = directory
        self.fd = fd
    }

    /// Locks the directory. Where a directory cannot be locked (NFS emulates `flock` with POSIX
    /// locks, which need a descriptor open for writing), only the lock file is locked, as vault
    /// 1.0 did: writers still exclude each other unless the lock file is deleted under them.
    private static func lockDirectory(_ directory: Int32, _ path: String) throws(VaultError) {
        guard case .failure(let errno) = valueOrErrno({ flock(directory, LOCK_EX) }) else { return }
        if [EBADF, ENOLCK, EOPNOTSUPP].contains(errno.rawValue) { return }
        throw systemError("lock the directory \(path)", errno)
    }

    /// Replaces the lock file's contents (vault keeps its header record there) and flushes them.
    package func replaceContents(_ bytes: [UInt8]) throws(VaultError) {
        try syscall("truncate the lock file") { ftruncate(fd, 0) }
        let written = try syscall("write the lock file") {
            bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        guard written == bytes.count else { throw VaultError(.other, "cannot write the lock file: short write") }
        try syscall("flush the lock file") { fsync(fd) }
    }

    deinit {
        close(fd)  // releases the locks
        close(directory)
    }
}

/// An exclusive `flock` on one lock file, held until released: for locks that guard something
/// other than a vault file (a token's refresh, a keyring name), where locking the directory as
/// ``FileLock`` does would make a write to a vault file in that directory wait for ever.
package final class LockFile {
    private let fd: Int32

    /// Blocks until `path` (created 0600 if needed; never through a symbolic link) is locked.
    package init(path: String) throws(VaultError) {
        let fd = try Self.open(path)
        do {
            try syscall("lock \(path)") { flock(fd, LOCK_EX) }
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    /// Locks `path` as above, but waits at most `seconds` (`VAULT_TIMEOUT`) for another holder:
    /// a lock held by a process that hangs (or by anything else that took it) must not block a
    /// `vault get` for ever. Past the limit: `.unavailable`, naming `what` was waited for.
    package init(path: String, waitingAtMost seconds: Double, for what: String) throws(VaultError) {
        let fd = try Self.open(path)
        let deadline = Deadline(seconds: seconds)
        var pause: UInt32 = 10_000
        while true {
            let result = valueOrErrno { flock(fd, LOCK_EX | LOCK_NB) }
            if case .success = result { break }
            if case .failure(let errno) = result, errno.rawValue != EWOULDBLOCK {
                close(fd)
                throw systemError("lock \(path)", errno)
            }
            if deadline.hasPassed {
                close(fd)
                throw VaultError(
                    .unavailable,
                    "gave up after \(formatSeconds(seconds)) s waiting for \(what) (another process holds \(path)); "
                        + "VAULT_TIMEOUT sets the wait")
            }
            // Polling, because flock has no timeout; the pause grows to 100 ms so that a long
            // wait costs little, and never sleeps past the deadline by more than that.
            usleep(UInt32(min(Int(pause), max(1, deadline.remainingMilliseconds) * 1_000)))
            pause = min(pause * 2, 100_000)
        }
        self.fd = fd
    }

    private static func open(_ path: String) throws(VaultError) -> Int32 {
        try syscall("open the lock file \(path)") {
            Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
    }

    deinit {
        close(fd)  // releases the lock
    }
}
