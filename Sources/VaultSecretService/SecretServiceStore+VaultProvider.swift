public import VaultSecureBytes
public import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// vault's own Secret Service provider (`vault secret-service serve`) as `vault unlock` and
/// `vault lock` reach it: through its private interface, on the session bus.
///
/// The provider is usually started by the bus, in another session keyring than the shell's, so
/// the kernel keyring cannot carry the file key to it; the bus does. The key goes only to a
/// connection the bus says is this user's (GetConnectionUnixUser) and whose program is this very
/// vault binary (the same file as `/proc/self/exe`), addressed by its unique name, so that a name
/// changing hands between the check and the call cannot redirect it (design.md, "vault as the
/// Secret Service").
public enum VaultProviderControl {
    /// The provider's private object and interface.
    static let object = "/org/vault/Provider"
    static let interface = "org.vault.Provider1"

    /// What became of a hand-over.
    public enum Outcome: Sendable, Equatable {
        /// vault's provider (process `pid`) took the call.
        case done(pid: UInt32)
        /// Nothing owns the Secret Service's name, or the session bus cannot be reached.
        case noProvider
        /// Another program owns it (`reason` says why it is not vault's): nothing was sent.
        case notVault(reason: String)
    }

    /// Hands `fileKey` to vault's provider, which checks it against the header of the file it
    /// serves and unlocks with it for `seconds`, the unlock's own duration.
    public static func unlock(fileKey: SecureBytes, seconds: Int64, timeout: Double) throws(VaultError) -> Outcome {
        try callProvider(
            "UnlockWithFileKey", bytes: fileKey, number: UInt64(max(seconds, 1)),
            action: "handing the file key to vault's provider", timeout: timeout)
    }

    /// Asks vault's provider to forget its key: its collections are locked again.
    public static func lock(timeout: Double) throws(VaultError) -> Outcome {
        try callProvider("Lock", bytes: nil, number: nil, action: "locking vault's provider", timeout: timeout)
    }

    /// Asks the session bus to read its configuration and activation files again
    /// (`ReloadConfig`): a bus does not see a file in a folder that did not exist when it started,
    /// and would start the provider it knew of.
    public static func reloadBus(timeout: Double) throws(VaultError) {
        let store = try SecretServiceStore(timeout: timeout)
        try store.perform("asking the session bus to reload its activation files") { (call) throws(VaultError) in
            try call.connect()
            try call.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig", bytes: nil)
        }
    }

    private static func callProvider(
        _ method: String, bytes: SecureBytes?, number: UInt64?, action: String, timeout: Double
    ) throws(VaultError) -> Outcome {
        let store = try SecretServiceStore(timeout: timeout)
        return try store.perform(action) { (call) throws(VaultError) -> Outcome in
            // A bus that cannot be reached (an address left from another login) has no provider
            // to give the key to or lock; unlock and lock do their own work as without a bus.
            do throws(VaultError) {
                try call.connect()
            } catch {
                return .noProvider
            }
            guard let owner = try call.nameOwner(SecretServiceNames.bus) else { return .noProvider }
            if let reason = whyNotVault(uid: owner.uid, pid: owner.pid) { return .notVault(reason: reason) }
            try call.call(owner.unique, object, interface, method, bytes: bytes, number: number)
            return .done(pid: owner.pid)
        }
    }

    /// Why the connection of `uid` and `pid` must not be given a key, or nil if it is this user's
    /// and runs this vault.
    static func whyNotVault(uid: UInt32, pid: UInt32) -> String? {
        guard uid == getuid() else { return "its owner runs as uid \(uid), not this user's \(getuid())" }
        var theirs = stat()
        var ours = stat()
        guard pid > 0, stat("/proc/\(pid)/exe", &theirs) == 0, stat("/proc/self/exe", &ours) == 0 else {
            return "its program cannot be seen in /proc"
        }
        guard theirs.st_dev == ours.st_dev, theirs.st_ino == ours.st_ino else {
            let name = SecretServiceProvider(pid: pid)?.name ?? "process \(pid)"
            return "it is \(name), not this vault program"
        }
        return nil
    }
}
