public import VaultStorage

/// Many secrets in one locked rewrite of the vault file, for migration.
extension FileStore: SecretBatchStore {
    public func readAll(service: String?) throws(VaultError) -> [SecretRecord] {
        guard let document = try load()?.plaintext else { return [] }
        return try VaultDocument.decode(document)
            .filter { service == nil || $0.name.service == service }
            .sorted { $0.name < $1.name }
    }

    public func write(_ records: [SecretRecord]) throws(VaultError) {
        guard !records.isEmpty else { return }
        try modify { existing in
            var index: [SecretName: Int] = [:]
            for (position, record) in existing.enumerated() { index[record.name] = position }
            for record in records {
                if let position = index[record.name] {
                    existing[position] = record
                } else {
                    index[record.name] = existing.count
                    existing.append(record)
                }
            }
            return true
        }
    }

    public func deleteUnchanged(_ records: [SecretRecord]) throws(VaultError) -> Set<SecretName> {
        guard !records.isEmpty else { return [] }
        var wanted: [SecretName: SecretRecord] = [:]
        for record in records { wanted[record.name] = record }
        var removed = Set<SecretName>()
        try modify { existing in
            existing.removeAll { record in
                guard let expected = wanted[record.name], record.isSameSecret(as: expected) else { return false }
                removed.insert(record.name)
                return true
            }
            return !removed.isEmpty
        }
        return removed
    }
}
