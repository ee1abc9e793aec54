public import VaultSecretService
public import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What surrounds vault's Secret Service provider: how a bus starts it, where its activation file
/// goes, and which provider owns the name now.
extension StoreFactory {
    /// The command line a bus starts this vault's provider with: `executable` (this program's
    /// absolute path) and the store this command would use.
    public func providerLaunch(executable: String) throws(VaultError) -> ProviderLaunch {
        let backend = try requestedBackend()
        let input = requestedBackendInput
        var folder = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&folder, folder.count) != nil else {
            throw systemError("find the current folder", Errno.current)
        }
        return try ProviderLaunch(
            executable: executable, backend: backend, backendInput: input, file: try filePath(),
            workingDirectory: String(decoding: folder.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The activation folders of this user's session bus.
    public func providerActivation() throws(VaultError) -> ProviderActivation {
        let folders = configuration.folders
        guard let data = folders.data ?? folders.home.map({ $0 + "/.local/share" }) else {
            throw VaultError(.usage, "HOME is not set, so the user's data folder is unknown")
        }
        let system = (configuration.dataDirectories ?? "/usr/local/share:/usr/share")
            .split(separator: ":").filter { $0.hasPrefix("/") }.map { String($0) + "/dbus-1/services" }
        return ProviderActivation(
            userFolder: data + "/dbus-1/services", runtimeFolder: folders.runtime.map { $0 + "/dbus-1/services" },
            systemFolders: system)
    }

    /// The program that owns the Secret Service's name on the session bus now, without starting
    /// one; nil when there is no bus or nothing owns it.
    public func runningProvider() -> RunningProvider? {
        secretServiceProvider().map { RunningProvider(name: $0.name, isVault: $0.isVault) }
    }

    /// Hands `fileKey` to vault's provider on the session bus for `seconds` (`vault unlock`); nil
    /// when there is no session bus to look on.
    public func unlockVaultProvider(fileKey: SecureBytes, seconds: Int64) throws(VaultError)
        -> VaultProviderControl.Outcome?
    {
        guard sessionBusProblem() == nil else { return nil }
        return try VaultProviderControl.unlock(fileKey: fileKey, seconds: seconds, timeout: try timeout())
    }

    /// Locks vault's provider on the session bus (`vault lock`); nil when there is no session bus.
    public func lockVaultProvider() throws(VaultError) -> VaultProviderControl.Outcome? {
        guard sessionBusProblem() == nil else { return nil }
        return try VaultProviderControl.lock(timeout: try timeout())
    }

    /// Makes the session bus read its activation files again (after `enable` or `disable`); false
    /// when there is no session bus.
    public func reloadSessionBus() throws(VaultError) -> Bool {
        guard sessionBusProblem() == nil else { return false }
        try VaultProviderControl.reloadBus(timeout: try timeout())
        return true
    }

    /// Where `vault secret-service run` keeps its private bus's socket and configuration:
    /// `$XDG_RUNTIME_DIR`, else `TMPDIR`, else `/tmp`.
    public func privateBusParent() -> String {
        configuration.folders.runtime ?? configuration.temporaryFolder ?? "/tmp"
    }
}

/// The provider that owns the Secret Service's name.
public struct RunningProvider: Sendable, Equatable {
    /// Its name for people ("GNOME Keyring", "vault (/usr/bin/vault)").
    public let name: String
    /// Whether it is a vault.
    public let isVault: Bool
}
