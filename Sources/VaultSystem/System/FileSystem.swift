package import VaultSecureBytes
package import VaultStorage

#if canImport(Glibc)
    package import Glibc
#endif

/// File operations the vault needs, built on ``syscall(_:_:)``.
package enum FileSystem {
    /// Reads a whole file, or returns `nil` if it does not exist.
    package static func read(_ path: String, limit: Int = 1 << 30) throws(VaultError) -> [UInt8]? {
        guard let fd = try syscall("open \(path)", unless: .noSuchFileOrDirectory, { open(path, O_RDONLY | O_CLOEXEC) })
        else { return nil }
        defer { close(fd) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// Reads a vault file, or returns `nil` if it does not exist.
    ///
    /// Opens without blocking and refuses anything but a regular file, so that a FIFO, a device or
    /// a directory given as the vault file fails at once instead of hanging or being replaced.
    package static func readRegularFile(_ path: String, limit: Int) throws(VaultError) -> [UInt8]? {
        try withRegularFile(path) { (fd) throws(VaultError) in try readAll(fd, path: path, limit: limit) }
    }

    /// Reads a regular file that holds a secret (a JWT) as ``readRegularFile(_:limit:)`` does.
    package static func readRegularSecretFile(_ path: String, limit: Int) throws(VaultError) -> SecureBytes? {
        try withRegularFile(path) { (fd) throws(VaultError) in try readSecret(fd, path: path, limit: limit) }
    }

    private static func withRegularFile<T>(_ path: String, _ body: (Int32) throws(VaultError) -> T) throws(VaultError)
        -> T?
    {
        guard
            let fd = try syscall(
                "open \(path)", unless: .noSuchFileOrDirectory, { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) })
        else { return nil }
        defer { close(fd) }
        var st = stat()
        try syscall("stat \(path)") { fstat(fd, &st) }
        try checkRegular(st, path)
        return try body(fd)
    }

    /// Throws unless `path` is missing or a regular file; checked before anything is locked or created.
    package static func checkRegularOrMissing(_ path: String) throws(VaultError) {
        var st = stat()
        guard try syscall("open \(path)", unless: .noSuchFileOrDirectory, { stat(path, &st) }) != nil else { return }
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
        throw VaultError(.usage, "\(path) is \(kind), not a vault file", remedy: .nameRegularFile)
    }

    /// Reads from a descriptor until end of file; more than `limit` bytes is an error. For files
    /// that hold no secret in the clear (a vault file, a recipients file, a template): the
    /// buffers are not wiped; ``readSecret(_:path:limit:)`` reads the others.
    package static func readAll(_ fd: Int32, path: String, limit: Int) throws(VaultError) -> [UInt8] {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize(fd, limit: limit) { buffer.reserveCapacity($0) })
        while true {
            let n = try syscall("read \(path)") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            buffer.append(contentsOf: chunk[..<n])
            if buffer.count > limit { throw VaultError(.other, "\(path) is larger than \(limit) bytes") }
        }
        return buffer
    }

    /// Reads from a descriptor until end of file into secret bytes, which zero themselves (and
    /// every buffer they outgrow) when released; more than `limit` bytes is an error.
    static func readSecret(_ fd: Int32, path: String, limit: Int) throws(VaultError) -> SecureBytes {
        var buffer = SecureBytes()
        var chunk = SecureBytes(zeros: chunkSize(fd, limit: limit) { buffer.reserveCapacity($0) })
        while true {
            let n = try syscall("read \(path)") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            chunk.withUnsafeBytes { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            if buffer.count > limit { throw VaultError(.other, "\(path) is larger than \(limit) bytes") }
        }
        return buffer
    }

    /// The size of the chunks to read `fd` in; for a regular file, `reserve` is first given its
    /// size (plus one byte to see the end).
    private static func chunkSize(_ fd: Int32, limit: Int, reserve: (Int) -> Void) -> Int {
        // A small file (a key file) is read through a buffer of its own size, not 64 KiB of
        // pages to zero and fault in.
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return 65_536 }
        reserve(min(Int(st.st_size), limit) + 1)
        return min(65_536, max(4096, Int(st.st_size) + 1))
    }

    /// Reads a file holding key material; refuses it if group or others may read it, as ssh does.
    package static func readPrivate(_ path: String, what: String) throws(VaultError) -> SecureBytes {
        let fd = try syscall("read the \(what) \(path)", code: .cannotUnlock) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var st = stat()
        try syscall("stat \(path)") { fstat(fd, &st) }
        if st.st_mode & 0o077 != 0, (st.st_mode & S_IFMT) == S_IFREG {
            throw VaultError(
                .cannotUnlock,
                "the \(what) \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8)))",
                remedy: .restrictMode(path: path, mode: "600"))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw VaultError(.cannotUnlock, "the \(what) \(path) is a directory", remedy: .nameFileItself)
        }
        do {
            return try readSecret(fd, path: path, limit: 1 << 20)
        } catch {
            // Key material that cannot be read means the store cannot be unlocked, like a missing file.
            throw VaultError(.cannotUnlock, "the \(what): \(error.message)", errno: error.errno)
        }
    }

    /// Creates a directory and its missing parents; new ones get mode 0700 whatever the umask.
    package static func makeDirectories(_ path: String) throws(VaultError) {
        var st = stat()
        if stat(path, &st) == 0 { return }
        let parent = directory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        guard try syscall("create the directory \(path)", unless: .fileExists, { mkdir(path, 0o700) }) != nil else {
            return
        }
        _ = chmod(path, 0o700)
    }

    /// Replaces the vault file `lock` is held for with `bytes`, atomically and durably.
    ///
    /// Writes a temporary file (mode 0600) with a name of its own, created with `O_EXCL`, in the
    /// same directory, fsyncs it, renames it over the file and fsyncs the directory. A crash at
    /// any point leaves either the old or the new file; a failure removes the temporary file.
    /// Temporary files a crashed writer left are removed first: the directory lock is held, so no
    /// live writer owns one. A temporary file deleted by someone else before the rename is
    /// written again. When running as root, the new file keeps the old one's owner (`sudo vault
    /// set` leaves the user's vault theirs: it is encrypted to their key).
    package static func writeAtomically(_ bytes: [UInt8], lock: FileLock) throws(VaultError) {
        try withBytes(bytes) { (raw) throws(VaultError) in
            try writeAtomically(raw, in: lock.directory, name: lock.fileName, keepingOwner: true)
        }
    }

    /// Replaces the file `name` in the folder `directory` with `bytes`, as above; for small
    /// files vault keeps outside the vault's directory, which nothing else writes at once, and
    /// for `vault inject -o`.
    ///
    /// These files hold secrets in the clear, so root never gives one to another user: the new
    /// file is root's, and a file of another user's is not replaced at all (``refuseOthersFile``).
    package static func writeAtomically(_ bytes: [UInt8], directory: String, name: String) throws(VaultError) {
        try withBytes(bytes) { (raw) throws(VaultError) in try writeAtomically(raw, directory: directory, name: name) }
    }

    /// ``writeAtomically(_:directory:name:)`` for secret bytes (`vault inject -o`).
    package static func writeAtomically(_ bytes: SecureBytes, directory: String, name: String) throws(VaultError) {
        try bytes.withUnsafeBytes { (raw) throws(VaultError) in
            try writeAtomically(raw, directory: directory, name: name)
        }
    }

    package static func writeAtomically(_ bytes: UnsafeRawBufferPointer, directory: String, name: String)
        throws(VaultError)
    {
        let fd = try syscall("open the directory \(directory)") {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { close(fd) }
        try refuseOthersFile(fd, directory: directory, name: name)
        try writeAtomically(bytes, in: fd, name: name, keepingOwner: false)
    }

    /// Throws when running as root and `name` is another user's file. Replacing it would take
    /// the file from its owner, keeping its owner would hand them the secrets written into it.
    static func refuseOthersFile(_ dir: Int32, directory: String, name: String) throws(VaultError) {
        guard geteuid() == 0 else { return }
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_uid != geteuid() else { return }
        let path = (directory == "/" ? "" : directory) + "/" + name
        throw VaultError(
            .other,
            "\(path) belongs to uid \(st.st_uid): root does not replace another user's file with secrets",
            remedy: .removeForeignFile)
    }

    private static func writeAtomically(
        _ bytes: UnsafeRawBufferPointer, in dir: Int32, name: String, keepingOwner: Bool
    ) throws(VaultError) {
        removeStaleTemporaryFiles(of: name, in: dir)
        let owner = keepingOwner ? ownerToKeep(dir, name) : nil
        var attempt = 0
        while true {
            attempt += 1
            let temporary = ".\(name).tmp-\(randomSuffix())"
            let fd = try syscall("create \(temporary)") {
                openat(dir, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
            var renamed = false
            defer { if !renamed { unlinkat(dir, temporary, 0) } }
            do {
                defer { close(fd) }
                try syscall("set the mode of \(temporary)") { fchmod(fd, 0o600) }
                if let owner {
                    try syscall("give \(temporary) the owner of \(name)") { fchown(fd, owner.uid, owner.gid) }
                }
                var offset = 0
                while offset < bytes.count {
                    let n = try syscall("write \(temporary)") {
                        write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    }
                    offset += n
                }
                try syscall("flush \(temporary) to disk") { fsync(fd) }
            }
            if case .failure(let errno) = valueOrErrno({ renameat(dir, temporary, dir, name) }) {
                // Someone deleted the temporary file: the old file is still in place, write it again.
                if errno == .noSuchFileOrDirectory, attempt < Self.writeAttempts { continue }
                throw systemError("replace \(name)", errno)
            }
            renamed = true
            break
        }
        if case .failure(let errno) = valueOrErrno({ fsync(dir) }) {
            // The rename is done and every later command sees the new file: saying the write
            // failed would invite a retry of a change that happened (an `rm` would then say "no
            // secret"), but it may not survive a crash, so it is still a failure.
            throw VaultError(
                .other,
                "\(name) was changed, but flushing its directory to disk failed (\(errno)); "
                    + "the change may not survive a crash", errno: errno)
        }
    }

    /// `bytes.withUnsafeBytes`, keeping the error's type (Array's is only `rethrows`).
    static func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(VaultError) -> T)
        throws(VaultError) -> T
    {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(VaultError) in try body(raw) } }
        return try result.get()
    }

    /// How often a write whose temporary file is deleted before the rename is tried.
    static let writeAttempts = 20

    /// The owner a new version of `name` must keep: when running as root, the owner of the file
    /// being replaced (so that `sudo vault set` leaves the user's vault theirs), else nil.
    static func ownerToKeep(_ dir: Int32, _ name: String) -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard st.st_uid != geteuid() || st.st_gid != getegid() else { return nil }
        return (st.st_uid, st.st_gid)
    }

    /// Removes `.<name>.tmp` (vault 1.0's fixed name) and `.<name>.tmp-<16 hex digits>`.
    private static func removeStaleTemporaryFiles(of name: String, in dir: Int32) {
        let copy = dup(dir)
        guard copy >= 0 else { return }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return
        }
        defer { closedir(stream) }
        let prefix = ".\(name).tmp"
        var stale: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix) else { continue }
            let rest = entryName.utf8.dropFirst(prefix.utf8.count)
            let isOurs =
                rest.isEmpty
                || (rest.count == 17 && rest.first == UInt8(ascii: "-")
                    && rest.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            if isOurs { stale.append(entryName) }
        }
        for entryName in stale { unlinkat(dir, entryName, 0) }
    }

    private static func randomSuffix() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.utf8.count) + hex
    }

    /// Resolves a vault path that is a symbolic link to the file it names, once, so that a write
    /// replaces the target (with the lock and temporary files beside it), never the link.
    package static func resolvingLink(_ path: String) throws(VaultError) -> String {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return path }
        guard let resolved = realPath(path) else {
            let errno = Errno.current
            guard errno == .noSuchFileOrDirectory else { throw systemError("resolve the symbolic link \(path)", errno) }
            throw VaultError(.usage, "\(path) is a symbolic link to a missing file", remedy: .createLinkTarget)
        }
        return resolved
    }

    /// The directory part of a path (`.` for a bare file name).
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    package static func baseName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The owner of `path`, or of its nearest existing parent if it does not exist.
    package static func ownerOfNearestExisting(_ path: String) -> uid_t? {
        var current = path
        while true {
            var st = stat()
            if stat(current, &st) == 0 { return st.st_uid }
            let parent = directory(of: current)
            if parent == current { return nil }
            current = parent
        }
    }

    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }
}

extension FileSystem {
    /// An absolute path with symbolic links resolved, to tell whether two paths name one file.
    /// A missing file is resolved through its directory; a missing directory is left as given.
    package static func canonicalPath(_ path: String) -> String {
        if let resolved = realPath(path) { return resolved }
        if let directory = realPath(directory(of: path)) {
            return (directory == "/" ? "" : directory) + "/" + baseName(of: path)
        }
        return path
    }

    fileprivate static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
