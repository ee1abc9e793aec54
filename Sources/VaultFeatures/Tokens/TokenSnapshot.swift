import VaultSecureBytes
import VaultStorage

/// A living token and its companion read together, under the refresh lock (and, on a shared
/// store, the refresh lease): what a refresh decides on.
///
/// On a batch store (the vault file) it is one read, one decryption, which also holds the client
/// secret a confidential client needs; elsewhere the companion is read first, then the token.
/// On a lease store it keeps the companion's version, against which the refresh writes the new
/// refresh token with check-and-set.
struct TokenSnapshot {
    var token: SecretRecord?
    var companion: TokenCompanion?
    /// The companion's version (lease stores only).
    var companionVersion: Int?
    /// The rest of the service's secrets when one read got them all (batch stores), for the client secret.
    private var others: [SecretName: SecretRecord] = [:]
    private var readEverything = false

    static func read(_ name: SecretName, from store: any SecretStore) throws(VaultError) -> TokenSnapshot {
        let companionName = try TokenCompanion.name(for: name)
        var snapshot = TokenSnapshot()
        let stored: SecretRecord?
        if let batch = store as? any SecretBatchStore {
            for record in try batch.readAll(service: name.service) { snapshot.others[record.name] = record }
            snapshot.readEverything = true
            stored = snapshot.others.removeValue(forKey: companionName)
            snapshot.token = snapshot.others.removeValue(forKey: name)
        } else if let leases = store as? any SecretLeaseStore {
            let versioned = try leases.readVersioned(companionName)
            stored = versioned?.record
            snapshot.companionVersion = versioned?.version
        } else {
            stored = try store.read(companionName)
        }
        guard let stored else { return snapshot }
        snapshot.companion = try TokenCompanion(decoding: stored.value, name: name)
        if !(store is any SecretBatchStore) { snapshot.token = try store.read(name) }
        return snapshot
    }

    /// A secret of the token's service read with the snapshot, if the snapshot read them all.
    func record(_ name: SecretName) -> SecretRecord?? {
        readEverything ? .some(others[name]) : nil
    }
}
