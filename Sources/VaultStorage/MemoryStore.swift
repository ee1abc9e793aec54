/// A store that keeps secrets in memory: the test double at the storage edge.
public final class MemoryStore: SecretStore {
    private var records: [SecretName: SecretRecord] = [:]

    public init(_ records: [SecretRecord] = []) {
        for record in records { self.records[record.name] = record }
    }

    public var label: String { "memory" }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        records[name]
    }

    public func write(_ record: SecretRecord) throws(VaultError) {
        records[record.name] = record
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        records.removeValue(forKey: name) != nil
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        records.values
            .filter { service == nil || $0.name.service == service }
            .map(\.entry)
            .sorted { $0.name < $1.name }
    }
}
