package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A file open for reading at explicit offsets (`pread`), closed when released.
///
/// The vault file is read this way, one age chunk at a time, so that reading a large vault
/// needs no buffer the size of the file. Writers replace the file by rename, so the open
/// descriptor keeps seeing one version of it from start to end.
package final class OpenFile {
    let path: String
    /// The size when the file was opened; reads past it find nothing.
    package let size: Int
    private let fd: Int32

    /// Opens `path` for reading, or returns nil if it does not exist.
    ///
    /// As ``FileSystem/readRegularFile(_:limit:)``: opens without blocking and refuses anything
    /// but a regular file, so that a FIFO or a device given as the vault file fails at once.
    package init?(reading path: String) throws(VaultError) {
        guard
            let fd = try syscall(
                "open \(path)", unless: .noSuchFileOrDirectory, { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) })
        else { return nil }
        var st = stat()
        do {
            try syscall("stat \(path)") { fstat(fd, &st) }
            try FileSystem.checkRegular(st, path)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
        size = Int(st.st_size)
    }

    deinit { close(fd) }

    /// Reads the bytes in `range` into `buffer`, replacing its contents and reusing its storage;
    /// fewer bytes if the file ends first.
    package func read(_ range: Range<Int>, into buffer: inout [UInt8]) throws(VaultError) {
        if buffer.count != range.count { buffer = [UInt8](repeating: 0, count: range.count) }
        var done = 0
        while done < range.count {
            let n = try syscall("read \(path)") {
                buffer.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound + done))
                }
            }
            if n == 0 { break }
            done += n
        }
        if done < range.count { buffer.removeSubrange(done...) }
    }

    /// Reads the bytes in `range` into a new array; fewer if the file ends first.
    package func read(_ range: Range<Int>) throws(VaultError) -> [UInt8] {
        var buffer: [UInt8] = []
        try read(range, into: &buffer)
        return buffer
    }
}
