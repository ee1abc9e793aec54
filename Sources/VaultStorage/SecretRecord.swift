public import VaultSecureBytes

/// What a store knows about a secret besides its value.
public struct SecretMetadata: Hashable, Sendable {
    /// When the secret was first written.
    public var created: Timestamp
    /// When the value was last written.
    public var updated: Timestamp
    /// When the secret stops being valid, if it expires.
    public var expires: Timestamp?
    /// What the value is, when it is not a plain value (``SecretKind``); nil for a plain secret.
    public var kind: SecretKind?

    public init(created: Timestamp, updated: Timestamp, expires: Timestamp? = nil, kind: SecretKind? = nil) {
        self.created = created
        self.updated = updated
        self.expires = expires
        self.kind = kind
    }
}

/// A listing entry: a secret's name and metadata, without its value.
public struct SecretEntry: Hashable, Sendable {
    public var name: SecretName
    public var metadata: SecretMetadata

    public init(name: SecretName, metadata: SecretMetadata) {
        self.name = name
        self.metadata = metadata
    }
}

/// A secret: its name, its value bytes, and its metadata.
public struct SecretRecord: Hashable, Sendable {
    public var name: SecretName
    /// The value, byte for byte as given: it may hold NUL bytes and need not be UTF-8. Its
    /// storage is zeroed when the last copy is released.
    public var value: SecureBytes
    public var metadata: SecretMetadata

    public init(name: SecretName, value: SecureBytes, metadata: SecretMetadata) {
        self.name = name
        self.value = value
        self.metadata = metadata
    }

    /// A record holding a copy of `value`; the array stays its owner's to wipe.
    public init(name: SecretName, value: [UInt8], metadata: SecretMetadata) {
        self.init(name: name, value: SecureBytes(value), metadata: metadata)
    }

    /// The record without its value.
    public var entry: SecretEntry { SecretEntry(name: name, metadata: metadata) }
}

extension SecretRecord {
    /// Whether `other` holds the same secret: the same value, expiry and kind.
    ///
    /// Creation and update times may differ: a store that cannot keep them (an item another tool
    /// wrote to the Secret Service) reports its own, and they must not make a copy look different.
    public func isSameSecret(as other: SecretRecord) -> Bool {
        value == other.value && metadata.expires == other.metadata.expires && metadata.kind == other.metadata.kind
    }
}

extension SecretRecord {
    /// Calls `body` with the value in a temporary array, wiped when `body` returns: for a store
    /// whose API takes `[UInt8]`.
    func withValueArray<T, E: Error>(_ body: ([UInt8]) throws(E) -> T) throws(E) -> T {
        try value.withTemporaryArray(body)
    }
}
