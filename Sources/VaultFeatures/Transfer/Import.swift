public import VaultSecureBytes
public import VaultStorage

/// One secret to import: its name, value and, if the input said, its expiry time.
public struct ImportItem: Hashable, Sendable {
    public var name: SecretName
    public var value: [UInt8]
    /// The expiry the input gives (`nil`: none), when ``setsExpiry``.
    public var expires: Timestamp?
    /// Whether the input said anything about expiry (JSON's `"expires"`; never dotenv).
    public var setsExpiry: Bool
    /// The secret's kind (JSON's `"kind"`): a one-time code seed's; nil for a plain value.
    public var kind: SecretKind?

    /// An item whose input says nothing about expiry: the imported secret does not expire.
    public init(name: SecretName, value: [UInt8]) {
        self.name = name
        self.value = value
        self.expires = nil
        self.setsExpiry = false
    }

    /// An item with an expiry time (`nil`: explicitly none).
    public init(name: SecretName, value: [UInt8], expires: Timestamp?) {
        self.name = name
        self.value = value
        self.expires = expires
        self.setsExpiry = true
    }
}

/// The interchange formats of `vault import` and `vault export`.
public enum TransferFormat: String, Sendable, CaseIterable {
    case dotenv
    case json

    /// Reads every item of an input into `service`. Any malformed part fails the whole input,
    /// naming its line (dotenv, JSON syntax) or entry (JSON content); a name given twice too.
    public func parse(_ input: [UInt8], service: String) throws(VaultError) -> [ImportItem] {
        let items: [ImportItem]
        switch self {
        case .dotenv:
            var parsed: [ImportItem] = []
            for entry in try DotEnv.parse(input) {
                parsed.append(
                    ImportItem(name: try SecretName(service: service, account: entry.key), value: entry.value))
            }
            items = parsed
        case .json:
            items = try SecretsJSON.decode(input, service: service)
        }
        var seen = Set<SecretName>()
        for item in items {
            guard seen.insert(item.name).inserted else {
                throw VaultError(.usage, "'\(item.name.account)' is given twice in the input")
            }
            do {
                try Vault.checkSize(item.value.count)
            } catch {
                throw error.withMessage("'\(item.name.account)': \(error.message)")
            }
        }
        return items
    }

    /// Writes records in this format: see ``DotEnv/encode(_:)`` and docs/json.md.
    public func encode(_ records: [SecretRecord]) throws(VaultError) -> SecureBytes {
        switch self {
        case .dotenv: return try DotEnv.encode(records)
        case .json: return SecretsJSON.encode(records)
        }
    }
}

/// What an import did.
public struct ImportSummary: Equatable, Sendable {
    /// Secrets that did not exist before.
    public var added: [SecretName] = []
    /// Existing secrets whose value (or expiry) changed: only with `overwrite`.
    public var replaced: [SecretName] = []
    /// Existing secrets that already held the same value, left as they were.
    public var unchanged: [SecretName] = []
}

extension Vault {
    /// Imports items all or nothing with respect to conflicts: first reads every existing
    /// secret, and unless `overwrite` throws `.conflict` listing every name whose value (or,
    /// when the item sets one, expiry) differs, writing nothing. Then writes the new and changed
    /// secrets one by one with ``set(_:value:expires:)``; a secret that already holds the same
    /// value is left untouched. `onProgress` hears how many of the writes are done after each.
    public func importSecrets(
        _ items: [ImportItem], overwrite: Bool, onProgress: ((_ written: Int, _ total: Int) -> Void)? = nil
    ) throws(VaultError) -> ImportSummary {
        var summary = ImportSummary()
        var writes: [ImportItem] = []
        var conflicts: [String] = []
        for item in items {
            guard let existing = try store.read(item.name) else {
                summary.added.append(item.name)
                writes.append(item)
                continue
            }
            if existing.value == item.value, existing.metadata.kind == item.kind,
                !item.setsExpiry || existing.metadata.expires == item.expires
            {
                summary.unchanged.append(item.name)
            } else if overwrite {
                summary.replaced.append(item.name)
                writes.append(item)
            } else {
                conflicts.append(item.name.account)
            }
        }
        if !conflicts.isEmpty {
            let list = conflicts.map { "'\($0)'" }.joined(separator: ", ")
            let what = conflicts.count == 1 ? "1 secret already exists" : "\(conflicts.count) secrets already exist"
            throw VaultError(
                .conflict, "\(what) with a different value: \(list); nothing was imported", remedy: .overwriteImported)
        }
        for (index, item) in writes.enumerated() {
            try set(item.name, value: SecureBytes(item.value), expires: item.expires, kind: item.kind)
            onProgress?(index + 1, writes.count)
        }
        return summary
    }
}
