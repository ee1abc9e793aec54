public import VaultStorage

/// Where a secret stands with respect to its expiry time.
public enum ExpiryState: String, Sendable, CaseIterable {
    /// No expiry time, or one more than ``Vault/soonInterval`` away.
    case valid
    /// Not expired yet, but expires within ``Vault/soonInterval``.
    case soon
    /// The expiry time has passed: `get` refuses the secret without `--allow-expired`.
    case expired
}

/// What `vault show` reports about a secret: its metadata and size, never its value.
public struct SecretInfo: Hashable, Sendable {
    public var entry: SecretEntry
    /// The value's length in bytes.
    public var size: Int
    public var state: ExpiryState
    /// How vault refreshes it, if it is a living token.
    public var token: TokenSummary?
    /// What its codes are, if it is a one-time code secret (never its seed).
    public var oneTimeCode: OneTimeCodeSummary?

    public init(
        entry: SecretEntry, size: Int, state: ExpiryState, token: TokenSummary? = nil,
        oneTimeCode: OneTimeCodeSummary? = nil
    ) {
        self.entry = entry
        self.size = size
        self.state = state
        self.token = token
        self.oneTimeCode = oneTimeCode
    }
}

extension Vault {
    /// How close to its expiry a secret counts as expiring "soon": 7 days, in seconds.
    public static let soonInterval: Int64 = 7 * 86_400

    /// The expiry state of a secret at the vault's current time.
    ///
    /// A secret is expired from its expiry time on (the same rule as ``get(_:allowExpired:)``),
    /// and "soon" when it expires within ``soonInterval`` from now.
    public func expiryState(of metadata: SecretMetadata) -> ExpiryState {
        guard let expires = metadata.expires else { return .valid }
        let time = now()
        if expires <= time { return .expired }
        return expires <= time.adding(seconds: Self.soonInterval) ? .soon : .valid
    }

    /// A secret's metadata and size; throws `.notFound` if there is none. Expired secrets are
    /// described too.
    public func info(_ name: SecretName) throws(VaultError) -> SecretInfo {
        let record = try stored(name, allowExpired: true)
        return SecretInfo(
            entry: record.entry, size: record.value.count, state: expiryState(of: record.metadata),
            token: try companion(of: name)?.summary, oneTimeCode: try oneTimeCodeSummary(of: record))
    }

    /// Every secret of one service with its value, sorted by name, expired ones included
    /// (for `vault export`).
    public func records(service: String) throws(VaultError) -> [SecretRecord] {
        var records: [SecretRecord] = []
        for entry in try list(service: service) {
            records.append(try stored(entry.name, allowExpired: true))
        }
        return records
    }
}
