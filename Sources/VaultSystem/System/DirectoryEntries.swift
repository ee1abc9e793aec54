package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

extension FileSystem {
    /// The names in `directory` (without `.` and `..`); nil if it does not exist. Any other
    /// failure to open or read it throws, with its ``Errno``.
    package static func entries(of directory: String) throws(VaultError) -> [String]? {
        let fd = try syscall("open \(directory)", unless: .noSuchFileOrDirectory) {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard let fd else { return nil }
        guard let stream = fdopendir(fd) else {
            let errno = Errno.current
            close(fd)
            throw systemError("read the folder \(directory)", errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            // readdir returns NULL at the end and on failure; only a failure changes errno.
            errno = 0
            guard let entry = readdir(stream) else {
                guard errno == 0 else { throw systemError("read the folder \(directory)", Errno.current) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Removes the file `path`; a file that is already gone is no failure.
    package static func remove(_ path: String) throws(VaultError) {
        _ = try syscall("remove \(path)", unless: .noSuchFileOrDirectory) { unlink(path) }
    }
}
