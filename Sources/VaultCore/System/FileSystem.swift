#if canImport(Glibc)
    import Glibc
#endif

/// File operations the vault needs, built on ``syscall(_:_:)``.
enum FileSystem {
    /// Reads a whole file, or returns `nil` if it does not exist.
    static func read(_ path: String, limit: Int = 1 << 30) throws(VaultError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw systemError("open \(path)", errno: errno)
        }
        defer { close(fd) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// Reads a vault file, or returns `nil` if it does not exist.
    ///
    /// Opens without blocking and refuses anything but a regular file, so that a FIFO, a device or
    /// a directory given as the vault file fails at once instead of hanging or being replaced.
    static func readRegularFile(_ path: String, limit: Int) throws(VaultError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw systemError("open \(path)", errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        try syscall("stat \(path)") { fstat(fd, &st) }
        try checkRegular(st, path)
        return try readAll(fd, path: path, limit: limit)
    }

    /// Throws unless `path` is missing or a regular file; checked before anything is locked or created.
    static func checkRegularOrMissing(_ path: String) throws(VaultError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw systemError("open \(path)", errno: errno)
        }
        try checkRegular(st, path)
    }

    /// Throws unless `st` describes a regular file.
    static func checkRegular(_ st: stat, _ path: String) throws(VaultError) {
        let kind: String
        switch st.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO"
        case S_IFCHR, S_IFBLK: kind = "a device"
        default: kind = "a special file"
        }
        throw VaultError(.usage, "\(path) is \(kind), not a vault file; name a regular file with --file or VAULT_FILE")
    }

    /// Reads from a descriptor until end of file; more than `limit` bytes is an error.
    static func readAll(_ fd: Int32, path: String, limit: Int) throws(VaultError) -> [UInt8] {
        var buffer: [UInt8] = []
        var st = stat()
        // A small file (a key file) is read through a buffer of its own size, not 64 KiB of
        // pages to zero, fault in and wipe.
        var chunkSize = 65_536
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 {
            buffer.reserveCapacity(min(Int(st.st_size), limit) + 1)
            chunkSize = min(chunkSize, max(4096, Int(st.st_size) + 1))
        }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let n = try syscall("read \(path)") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            buffer.append(contentsOf: chunk[..<n])
            if buffer.count > limit {
                wipe(&buffer)
                wipe(&chunk)
                throw VaultError(.other, "\(path) is larger than \(limit) bytes")
            }
        }
        wipe(&chunk)
        return buffer
    }

    /// Reads a file holding key material; refuses it if group or others may read it, as ssh does.
    static func readPrivate(_ path: String, what: String) throws(VaultError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw VaultError(.cannotUnlock, "cannot read the \(what) \(path): \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var st = stat()
        try syscall("stat \(path)") { fstat(fd, &st) }
        if st.st_mode & 0o077 != 0, (st.st_mode & S_IFMT) == S_IFREG {
            throw VaultError(
                .cannotUnlock,
                "the \(what) \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); run: chmod 600 \(path)"
            )
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw VaultError(.cannotUnlock, "the \(what) \(path) is a directory; name the file itself")
        }
        do {
            return try readAll(fd, path: path, limit: 1 << 20)
        } catch {
            // Key material that cannot be read means the store cannot be unlocked, like a missing file.
            throw VaultError(.cannotUnlock, "the \(what): \(error.message)")
        }
    }

    /// Creates a directory and its missing parents; new ones get mode 0700 whatever the umask.
    static func makeDirectories(_ path: String) throws(VaultError) {
        var st = stat()
        if stat(path, &st) == 0 { return }
        let parent = directory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0 {
            if errno == EEXIST { return }
            throw systemError("create the directory \(path)", errno: errno)
        }
        _ = chmod(path, 0o700)
    }

    /// Replaces `path` with `bytes` atomically and durably.
    ///
    /// Writes a temporary file (mode 0600) in the same directory, fsyncs it, renames it over
    /// `path` and fsyncs the directory. A crash at any point leaves either the old or the new
    /// file; a failure removes the temporary file. The caller holds the vault's ``FileLock``, so
    /// one fixed temporary name suffices and a crashed writer's leftover is reused, not piled up.
    static func writeAtomically(_ path: String, _ bytes: [UInt8]) throws(VaultError) {
        let dir = directory(of: path)
        let temporary = "\(dir)/.\(baseName(of: path)).tmp"
        let fd = try syscall("create \(temporary)") {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        try replace(path, withTemporary: temporary, fd: fd, bytes)
    }

    /// Flushes a directory's entries (a rename) to disk.
    static func syncDirectory(_ dir: String) throws(VaultError) {
        let fd = try syscall("open the directory \(dir)") { open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try syscall("flush the directory \(dir) to disk") { fsync(fd) }
    }

    /// The directory part of a path (`.` for a bare file name).
    static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }
}

/// Overwrites a buffer that held secret bytes.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
        guard let base = raw.baseAddress else { return }
        explicit_bzero(base, raw.count)
    }
}

extension FileSystem {
    /// An absolute path with symbolic links resolved, to tell whether two paths name one file.
    /// A missing file is resolved through its directory; a missing directory is left as given.
    static func canonicalPath(_ path: String) -> String {
        if let resolved = realPath(path) { return resolved }
        if let directory = realPath(directory(of: path)) {
            return (directory == "/" ? "" : directory) + "/" + baseName(of: path)
        }
        return path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
