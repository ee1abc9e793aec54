#if canImport(Glibc)
    import Glibc
#endif

extension FileSystem {
    /// Reads a small file vault keeps for itself (a cached login, a refresh journal), or returns
    /// nil when it is missing, is not a regular file, belongs to someone else, may be read or
    /// written by group or others, or is larger than `limit` bytes: such a file is not vault's
    /// and is ignored (and replaced at the next write). Never follows a symbolic link.
    ///
    /// The caller wipes what is returned.
    static func readOwnPrivate(_ path: String, limit: Int = 16_384) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(),
            st.st_mode & 0o077 == 0, st.st_size < limit
        else { return nil }
        return try? readAll(fd, path: path, limit: limit)
    }

    /// Replaces the private file `path` with `bytes` (mode 0600, durably, as
    /// ``writeAtomically(_:directory:name:)``), creating its directory (0700) if needed.
    static func writePrivate(_ bytes: [UInt8], to path: String) throws(VaultError) {
        let directory = directory(of: path)
        try makeDirectories(directory)
        try writeAtomically(bytes, directory: directory, name: baseName(of: path))
    }
}
