public import VaultAgeFile
import VaultFeatures
public import VaultStorage

/// The stores the factory builds: the one of the resolved backend, a vault file, and a store
/// named by a spec (`migrate`, `VAULT_FALLBACK`).
extension StoreFactory {
    /// Builds the store for the resolved backend; with `VAULT_FALLBACK` set, a ``FallbackStore``
    /// that moves secrets from the store it names into that one as they are read.
    public func makeStore() throws(VaultError) -> any SecretStore {
        let current = BackendSpec(try resolvedBackend().kind)
        let store = try makeStore(current, keys: .vault)
        guard let fallback = try fallbackStore(current: current) else { return store }
        return FallbackStore(primary: store, fallback: fallback)
    }

    /// Builds the file store at ``filePath()`` unlocked by the `VAULT_*` key variables.
    public func makeFileStore() throws(VaultError) -> FileStore {
        try makeFileStore(named: nil, keys: .vault)
    }

    /// The file store at `named` (nil: ``filePath()``), unlocked by the key variables of `keys`:
    /// the one way a vault file's store is made, for the resolved backend and for a spec.
    func makeFileStore(named: String?, keys: FileKeySet) throws(VaultError) -> FileStore {
        let path = try filePath(named)
        return FileStore(
            path: path, keys: try fileKeys(keys, path: path), trust: headerTrust(), cache: try fileKeyCache())
    }

    /// The kernel keyring's cache of unlocked file keys, with the policy of `VAULT_UNLOCK_TTL`,
    /// `VAULT_UNLOCK_SCOPE` and `CI`.
    public func fileKeyCache() throws(VaultError) -> FileKeyCache {
        FileKeyCache(policy: try configuration.unlock.get())
    }

    /// Where the headers this user wrote are remembered: `$XDG_STATE_HOME/vault/headers`, or
    /// `~/.local/state/vault/headers`; nil (nothing checked) when neither can be found.
    public func headerTrust() -> HeaderTrust? {
        stateDirectory().map { HeaderTrust(directory: $0 + "/headers") }
    }

    /// The store `spec` names; a vault file is unlocked with `keys`.
    func makeStore(_ spec: BackendSpec, keys: FileKeySet) throws(VaultError) -> any SecretStore {
        try spec.descriptor.makeStore(self, spec.argument, keys)
    }

    /// What tells two specs apart.
    func identity(of spec: BackendSpec) throws(VaultError) -> StoreIdentity {
        try spec.descriptor.identity(self, spec.argument)
    }

    /// `file:PATH`'s path, or the usual vault file for plain `file`.
    func filePath(_ named: String?) throws(VaultError) -> String {
        if let named { return named }
        return try filePath()
    }
}
