/// One key per line, as age spells them: which kind a line is follows from its Bech32 prefix.
extension AgeIdentity {
    /// Parses one secret key: `AGE-SECRET-KEY-1...` (X25519) or `AGE-SECRET-KEY-PQ-1...` (hybrid).
    ///
    /// Messages never quote the key.
    public init(parsing line: String) throws(AgeError) {
        // Both spellings Bech32 allows; no uppercased copy of a secret is made to compare.
        if line.hasPrefix("AGE-SECRET-KEY-PQ-1") || line.hasPrefix("age-secret-key-pq-1") {
            self = .hybrid(try HybridIdentity(line))
        } else {
            self = .x25519(try X25519Identity(line))
        }
    }

    /// The recipient a new file opened by this identity is encrypted to; nil for a passphrase.
    public var recipient: AgeRecipient? {
        switch self {
        case .x25519(let key): .x25519(key.recipient)
        case .hybrid(let key): .hybrid(key.recipient)
        case .scrypt: nil
        }
    }
}

extension AgeRecipient {
    /// Parses one public key: `age1...` (X25519) or `age1pq1...` (post-quantum hybrid).
    ///
    /// The tagged types of age.md (`age1tag1...`, `age1tagpq1...`, meant for hardware keys) and
    /// plugin recipients (`age1NAME1...`) are refused by name.
    public init(parsing line: String) throws(AgeError) {
        let lower = line.lowercased()
        if lower.hasPrefix("age1pq1") {
            self = .hybrid(try HybridRecipient(line))
            return
        }
        if lower.hasPrefix("age1tag1") || lower.hasPrefix("age1tagpq1") {
            throw .invalidKey(
                "tagged recipients (age1tag1..., age1tagpq1..., for hardware keys) are not supported; "
                    + "use the key's age plugin recipient")
        }
        // Bech32 data never contains "1", so a second "1" means a plugin name (age1yubikey1...).
        if lower.hasPrefix("age1") && lower.dropFirst(4).contains("1") {
            throw .invalidKey("plugin recipients are not supported")
        }
        self = .x25519(try X25519Recipient(line))
    }

    /// The public key as age writes it (`age1...`, `age1pq1...`); nil for a passphrase.
    public var encoded: String? {
        switch self {
        case .x25519(let key): key.encoded
        case .hybrid(let key): key.encoded
        case .scrypt: nil
        }
    }

    /// Whether this recipient is post-quantum (it may only share a file with other such recipients).
    public var isPostQuantum: Bool {
        if case .hybrid = self { true } else { false }
    }
}
