#if canImport(Glibc)
    import Glibc
#endif

extension FileSystem {
    /// The end of every atomic write: gives the open temporary file `fd` mode 0600, writes all of
    /// `bytes` to it, flushes and closes it, renames it over `path` and flushes the directory. Any
    /// failure removes the temporary file and leaves `path` as it was; `fd` is closed either way.
    static func replace(_ path: String, withTemporary temporary: String, fd: Int32, _ bytes: [UInt8]) throws(VaultError)
    {
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(fd) }
            try syscall("set the mode of \(temporary)") { fchmod(fd, 0o600) }
            var offset = 0
            while offset < bytes.count {
                let n = try syscall("write \(temporary)") {
                    bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                }
                offset += n
            }
            try syscall("flush \(temporary) to disk") { fsync(fd) }
        }
        try syscall("replace \(path)") { rename(temporary, path) }
        renamed = true
        try syncDirectory(directory(of: path))
    }
}
