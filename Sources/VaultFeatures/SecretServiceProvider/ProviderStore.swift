import VaultSecureBytes
import VaultStorage

/// Where the provider keeps its collections, items and aliases: vault secrets of one reserved
/// service in a vault store (the file backend or OpenBao), each value a ``ProviderRecord``.
///
/// Nothing is cached between calls but what the store caches itself: every call reads the store
/// as it is now, so that CLI writes and other providers on the same file are seen at once, and a
/// write is one locked read-modify-write of the store (the file's lock), which loses none of
/// theirs.
final class ProviderStore {
    /// The service the provider's secrets belong to (`vault ls --service org.freedesktop.secrets`).
    static let service = "org.freedesktop.secrets"
    /// The collection the alias `default` names until SetAlias says otherwise.
    static let loginCollection = "login"

    let store: any SecretStore

    init(store: any SecretStore) { self.store = store }

    /// Everything the provider keeps, read at once.
    struct Snapshot {
        var collections: [String: ProviderRecord] = [:]
        /// By collection, then item id.
        var items: [String: [String: ProviderRecord]] = [:]
        var aliases: [String: String] = [:]

        /// The ids of every collection: those with a record, and `login`, which exists from the
        /// start (its record is written when it is first changed).
        var collectionIDs: [String] {
            Set(collections.keys).union([ProviderStore.loginCollection]).union(items.keys).sorted()
        }

        func hasCollection(_ id: String) -> Bool { id == ProviderStore.loginCollection || collections[id] != nil }

        /// The collection an alias names; `default` names `login` unless set.
        func collection(forAlias alias: String) -> String? {
            if let id = aliases[alias] { return id.isEmpty ? nil : id }
            return alias == "default" ? ProviderStore.loginCollection : nil
        }
    }

    func snapshot() throws(VaultError) -> Snapshot {
        var snapshot = Snapshot()
        for record in try records() {
            let parts = record.name.account.split(separator: "/", maxSplits: 2).map(String.init)
            switch (parts.first, parts.count) {
            case ("a", 2):
                snapshot.aliases[parts[1]] = record.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            case ("c", 2):
                if let decoded = ProviderRecord(decoding: record.value), decoded.kind == .collection {
                    snapshot.collections[parts[1]] = decoded
                }
            case ("i", 3):
                if let decoded = ProviderRecord(decoding: record.value), decoded.kind == .item {
                    snapshot.items[parts[1], default: [:]][parts[2]] = decoded
                }
            default: continue  // not one this provider wrote: left alone
            }
        }
        return snapshot
    }

    private func records() throws(VaultError) -> [SecretRecord] {
        if let batch = store as? any SecretBatchStore { return try batch.readAll(service: Self.service) }
        var records: [SecretRecord] = []
        for entry in try store.list(service: Self.service) {
            if let record = try store.read(entry.name) { records.append(record) }
        }
        return records
    }

    func writeItem(_ record: ProviderRecord, collection: String, id: String) throws(VaultError) {
        try write(record.encoded(), account: "i/\(collection)/\(id)")
    }

    func writeCollection(_ record: ProviderRecord, id: String) throws(VaultError) {
        try write(record.encoded(), account: "c/\(id)")
    }

    /// Points `alias` at a collection, or at none (an empty id).
    func writeAlias(_ alias: String, collection: String) throws(VaultError) {
        try write(SecureBytes(collection.utf8), account: "a/\(alias)")
    }

    @discardableResult
    func deleteItem(collection: String, id: String) throws(VaultError) -> Bool {
        try store.delete(name("i/\(collection)/\(id)"))
    }

    /// Deletes a collection's items, then its record.
    func deleteCollection(_ id: String, items: [String]) throws(VaultError) {
        for item in items { try deleteItem(collection: id, id: item) }
        try store.delete(name("c/\(id)"))
    }

    private func write(_ value: SecureBytes, account: String) throws(VaultError) {
        let now = Timestamp.now()
        _ = try store.replace(name(account), value: value) { existing in
            SecretMetadata(created: existing?.created ?? now, updated: now)
        }
    }

    private func name(_ account: String) throws(VaultError) -> SecretName {
        try SecretName(service: Self.service, account: account)
    }
}
