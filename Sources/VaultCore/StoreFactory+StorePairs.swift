public import VaultStorage

/// Two stores at once: `vault migrate`'s source and destination, and `VAULT_FALLBACK`'s store
/// beside the current one. Naming the same store twice is a usage error.
extension StoreFactory {
    /// The stores `vault migrate --from FROM --to TO` moves secrets between.
    ///
    /// A source file is unlocked with the `VAULT_*` key variables; a destination file with the
    /// `VAULT_TO_*` ones if any is set, else also with `VAULT_*` (see docs/migration.md).
    /// Naming the same store twice is a usage error.
    public func migrationStores(
        from: String, to: String
    ) throws(VaultError) -> (source: any SecretStore, destination: any SecretStore) {
        let source = try BackendSpec(parsing: from, from: .migrationSource)
        let destination = try BackendSpec(parsing: to, from: .migrationDestination)
        if try identity(of: source) == identity(of: destination) {
            throw VaultError(
                .usage, "are the same store; nothing to migrate",
                input: .migrationStores(source: from, destination: to))
        }
        let destinationKeys: FileKeySet = configuration.destinationFileKeys.first != nil ? .destination : .vault
        return (try makeStore(source, keys: .vault), try makeStore(destination, keys: destinationKeys))
    }

    /// The store `VAULT_FALLBACK` names, unlocked like the current one; `nil` if it is not set.
    func fallbackStore(current: BackendSpec) throws(VaultError) -> (any SecretStore)? {
        guard let fallback = configuration.fallback else { return nil }
        let spec = try fallback.spec.get()
        if try identity(of: spec) == identity(of: current) {
            throw VaultError(
                .usage, "\(fallback.setting) names the current backend, not a store to move secrets from")
        }
        return try makeStore(spec, keys: .vault)
    }
}
