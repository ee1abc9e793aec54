import Crypto

/// The lock that makes one refresh at a time per token, across processes.
///
/// One file per store and name under ``TokenSettings/lockDirectory``, named by a hash so that no
/// name reaches the file system. It is held with `flock` (``LockFile``): the kernel drops it when
/// its holder dies, so a `vault get` killed mid-refresh never blocks the next one. Waiters block
/// until the holder is done, then re-read the token it stored.
enum RefreshLock {
    static func acquire(_ name: SecretName, store: any SecretStore, settings: TokenSettings) throws(VaultError)
        -> LockFile
    {
        let key = Array("\(store.label)\u{0}\(name.service)\u{0}\(name.account)".utf8)
        let digest = SHA256.hash(data: key).prefix(16).map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
        }.joined()
        guard let directory = settings.lockDirectory else {
            throw VaultError(.usage, "no place for the refresh lock: set XDG_RUNTIME_DIR or HOME")
        }
        try FileSystem.makeDirectories(directory)
        return try LockFile(path: "\(directory)/.vault-refresh-\(digest).lock")
    }
}
