import VaultSecureBytes
import VaultStorage
import VaultSystem

/// The login token (AppRole or JWT) kept between commands in a `0600` file under
/// `$XDG_RUNTIME_DIR`, so that a CI job of many `vault get`s logs in once. The file holds the
/// expiry (seconds since 1970) and the token, one per line. A file that is not ours, not private
/// or not well-formed is ignored (and replaced at the next login).
struct OpenBaoTokenCache {
    let path: String
    /// A cached token is used only while more than this many seconds of its life remain.
    static let margin: Int64 = 30

    /// The cached token, if one is there and not near its expiry.
    func load(now: Timestamp = .now()) -> SecureBytes? {
        // `sudo -E` keeps the user's XDG_RUNTIME_DIR: root neither reads a login from, nor
        // writes one into, a folder that is not its own and private (``store(_:expires:)``).
        guard (try? FileSystem.checkPrivateDirectory(FileSystem.directory(of: path), holdingSecrets: true)) != nil
        else { return nil }
        guard let bytes = FileSystem.readOwnPrivate(path) else { return nil }
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        guard lines.count == 2, let expiry = Int64(String(decoding: lines[0], as: UTF8.self)), !lines[1].isEmpty,
            expiry - now.secondsSince1970 > Self.margin
        else { return nil }
        return SecureBytes(lines[1])
    }

    /// Keeps `token` until `expires`. Best effort: a cache that cannot be written only costs the
    /// next command a login.
    func store(_ token: SecureBytes, expires: Timestamp) {
        var bytes = SecureBytes("\(expires.secondsSince1970)\n".utf8)
        bytes.reserveCapacity(bytes.count + token.count + 1)
        token.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\n"))
        try? FileSystem.writePrivate(bytes, to: path)
    }

    /// Forgets the cached token (the server refused it). Best effort: a file left behind holds
    /// a token the server refuses, which the next command finds refused and logs in again.
    func remove() {
        try? FileSystem.remove(path)
    }

    /// Removes the files whose path starts with `prefix` and that hold no usable token (expired,
    /// or not well-formed): a JWT login caches one file per JWT, and a runner that keeps its
    /// `XDG_RUNTIME_DIR` would otherwise gather one per job. Best effort.
    static func removeUnusable(startingWith prefix: String, now: Timestamp = .now()) {
        let directory = FileSystem.directory(of: prefix)
        let start = FileSystem.baseName(of: prefix)
        guard let names = try? FileSystem.entries(of: directory) else { return }
        var stale: [String] = []
        for name in names where name.hasPrefix(start) {
            let path = directory + "/" + name
            if OpenBaoTokenCache(path: path).load(now: now) == nil { stale.append(path) }
        }
        for path in stale { try? FileSystem.remove(path) }
    }
}
