import VaultStorage
import VaultSystem

/// The lock that makes one refresh at a time per token, across processes.
///
/// One file per store and name under ``TokenSettings/lockDirectory``, named by a hash so that no
/// name reaches the file system. It is held with `flock` (``LockFile``): the kernel drops it when
/// its holder dies, so a `vault get` killed mid-refresh never blocks the next one. Waiters wait
/// until the holder is done, then re-read the token it stored; but no longer than
/// ``TokenSettings/waitLimit`` (`VAULT_TIMEOUT`), since a holder may hang. The folder must be
/// the user's and not writable by others (``FileSystem/makePrivateDirectory(_:holdingSecrets:)``).
enum RefreshLock {
    static func acquire(
        _ name: SecretName, store: any SecretStore, settings: TokenSettings, for purpose: String? = nil
    ) throws(VaultError) -> LockFile {
        guard let directory = settings.lockDirectory else {
            throw VaultError(
                .usage, "no place for the refresh lock", remedy: .setVariable(oneOf: ["XDG_RUNTIME_DIR", "HOME"]))
        }
        try FileSystem.makePrivateDirectory(directory, holdingSecrets: false)
        return try LockFile(
            path: "\(directory)/.vault-refresh-\(key(name, store: store)).lock", waitingAtMost: settings.waitLimit,
            for: purpose ?? "the refresh of '\(name.account)'")
    }

    /// What names `name`'s lock and journal files: a hash of the store and the name.
    static func key(_ name: SecretName, store: any SecretStore) -> String {
        Digest.hex("\(store.label)\u{0}\(name.service)\u{0}\(name.account)", bytes: 16)
    }
}
