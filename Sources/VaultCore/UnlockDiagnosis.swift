public import VaultAgeFile
public import VaultStorage

/// What `vault doctor` reports about the unlock cache (README, "Unlocking").
public struct UnlockDiagnosis: Sendable {
    /// Why the kernel keeps no key here, or why the settings are wrong; nil when caching works.
    public var problem: VaultError?
    /// The policy from `VAULT_UNLOCK_TTL`, `VAULT_UNLOCK_SCOPE` and `CI`, when it parses.
    public var policy: UnlockPolicy?
    /// Whether this login has a session keyring of its own.
    public var session: FileKeyCache.SessionKeyring?
    /// Until when the vault file's key is cached, if it is.
    public var fileUnlockedUntil: Timestamp?

    public init(factory: StoreFactory) {
        do throws(VaultError) {
            policy = try factory.fileKeyCache().policy
        } catch {
            problem = error
        }
        if problem == nil { problem = FileKeyCache.probe() }
        if case .success(let kind) = FileKeyCache.sessionKeyring() { session = kind }
        if problem == nil, let store = try? factory.makeFileStore() { fileUnlockedUntil = store.unlockedUntil() }
    }
}
