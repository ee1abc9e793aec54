#if canImport(Glibc)
    import Glibc
#endif

/// The AppRole login token kept between commands in a `0600` file under `$XDG_RUNTIME_DIR`, so
/// that a CI job of many `vault get`s logs in once. The file holds the expiry (seconds since
/// 1970) and the token, one per line. A file that is not ours, not private or not well-formed is
/// ignored (and replaced at the next login).
struct OpenBaoTokenCache {
    let path: String
    /// A cached token is used only while more than this many seconds of its life remain.
    static let margin: Int64 = 30

    /// The cached token, if one is there and not near its expiry.
    func load(now: Timestamp = .now()) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_uid == getuid(), st.st_mode & 0o077 == 0, st.st_size < 16_384 else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        defer { explicit_bzero(&bytes, bytes.count) }
        guard count == bytes.count else { return nil }
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 2, let expiry = Int64(lines[0]), !lines[1].isEmpty,
            expiry - now.secondsSince1970 > Self.margin
        else { return nil }
        return lines[1]
    }

    /// Keeps `token` until `expires`. Best effort: a cache that cannot be written only costs the
    /// next command a login.
    func store(_ token: String, expires: Timestamp) {
        let directory = FileSystem.directory(of: path)
        guard (try? FileSystem.makeDirectories(directory)) != nil else { return }
        let temporary = "\(path).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        var bytes = Array("\(expires.secondsSince1970)\n\(token)\n".utf8)
        defer { explicit_bzero(&bytes, bytes.count) }
        let written =
            fchmod(fd, 0o600) == 0 && bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
        close(fd)
        if !written || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// Forgets the cached token (the server refused it).
    func remove() {
        unlink(path)
    }
}
