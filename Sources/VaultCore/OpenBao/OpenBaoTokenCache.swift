import VaultAge
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
        guard var bytes = FileSystem.readOwnPrivate(path) else { return nil }
        defer { wipe(&bytes) }
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 2, let expiry = Int64(lines[0]), !lines[1].isEmpty,
            expiry - now.secondsSince1970 > Self.margin
        else { return nil }
        return lines[1]
    }

    /// Keeps `token` until `expires`. Best effort: a cache that cannot be written only costs the
    /// next command a login.
    func store(_ token: String, expires: Timestamp) {
        var bytes = Array("\(expires.secondsSince1970)\n\(token)\n".utf8)
        defer { wipe(&bytes) }
        try? FileSystem.writePrivate(bytes, to: path)
    }

    /// Forgets the cached token (the server refused it).
    func remove() {
        unlink(path)
    }
}
