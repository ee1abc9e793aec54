import VaultSecretService
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// When vault may talk to the Secret Service, and what `auto` makes of what it finds.
extension StoreFactory {
    /// Why vault must not reach for the session bus, or `nil` if there is one to reach.
    ///
    /// Without `DBUS_SESSION_BUS_ADDRESS`, GLib looks for `$XDG_RUNTIME_DIR/bus` (a socket of
    /// this user) and, failing that and with `DISPLAY` set, starts `dbus-launch` with vault's
    /// whole environment, unlock variables included. vault never starts a bus: every use of the
    /// Secret Service (`auto`, `--backend`, `VAULT_FALLBACK`, `migrate`) first checks that GLib
    /// would find one already running.
    func sessionBusProblem() -> VaultError? {
        if configuration.sessionBusAddress != nil { return nil }
        if let runtime = configuration.folders.runtime, Self.isOwnSocket(runtime + "/bus") { return nil }
        return VaultError(
            .unavailable,
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus); "
                + "vault never starts one", remedy: .runInDesktopSession)
    }

    /// What the Secret Service looks like now: the bus check, then one round trip.
    func secretServiceProbe() -> SecretServiceProbe {
        if let problem = sessionBusProblem() { return .absent(problem) }
        do throws(VaultError) {
            return SecretServiceStore.probe(timeout: try timeout())
        } catch {
            return .unusable(error)
        }
    }

    /// Why a Secret Service that answers still cannot hand over secrets (a search and the
    /// session's key exchange fail), or nil if they work; for `vault doctor`.
    func secretServiceRoundTripProblem() -> VaultError? {
        guard sessionBusProblem() == nil else { return nil }
        do throws(VaultError) {
            try SecretServiceStore.roundTrip(timeout: try timeout())
            return nil
        } catch {
            return error
        }
    }

    /// Whether a deleted secret may stay with the store's provider: the backend in use is a
    /// Secret Service whose provider is KeePassXC, which moves deleted entries to its database's
    /// Recycle Bin (when the bin is on). Asks the bus only when the backend is, or `auto` resolves
    /// to, the Secret Service.
    public func deletedSecretsMayBeKept() -> Bool {
        guard (try? resolvedBackend())?.kind == .secretService else { return false }
        return secretServiceProvider() == .keePassXC
    }

    /// The program providing the Secret Service, if one can be named (after the bus check).
    func secretServiceProvider() -> SecretServiceProvider? {
        guard sessionBusProblem() == nil, let timeout = try? timeout() else { return nil }
        return SecretServiceStore.provider(timeout: timeout)
    }

    /// The store for `secret-service`, after the bus check.
    func makeSecretServiceStore() throws(VaultError) -> SecretServiceStore {
        let timeout = try timeout()  // a usage error comes first
        if let problem = sessionBusProblem() { throw problem }
        return try SecretServiceStore(
            timeout: timeout, writeLock: secretServiceWriteLock(), promptTimeout: try promptTimeout())
    }

    /// The default of ``promptTimeout()``, in seconds.
    public static let defaultPromptTimeout = Configuration.defaultPromptTimeout

    /// Seconds to wait for a person at the provider's unlock dialog when someone can answer it
    /// (``Configuration/canAnswerDialogs``): `VAULT_PROMPT_TIMEOUT`, else
    /// ``defaultPromptTimeout``. Nil elsewhere: then vault only unlocks what unlocks without
    /// asking anyone, and fails at once otherwise.
    func promptTimeout() throws(VaultError) -> Double? {
        guard configuration.canAnswerDialogs else { return nil }
        return try configuration.promptTimeout.get()
    }

    /// The lock file vault's Secret Service writers share: in `$XDG_RUNTIME_DIR`, else in the
    /// user's cache folder; nil if neither is known.
    func secretServiceWriteLock() -> String? {
        let folders = configuration.folders
        let file = "/vault/secret-service.lock"
        if let runtime = folders.runtime { return runtime + file }
        if let cache = folders.cache { return cache + file }
        if let home = folders.home, home.hasPrefix("/") { return home + "/.cache" + file }
        return nil
    }

    /// What GLib accepts as the session bus at that path: a socket owned by this user.
    private static func isOwnSocket(_ path: String) -> Bool {
        var status = stat()
        // Any failure (missing, not reachable) means no bus GLib could use there.
        guard case .success = valueOrErrno({ stat(path, &status) }) else { return false }
        return status.st_mode & S_IFMT == S_IFSOCK && status.st_uid == geteuid()
    }
}
