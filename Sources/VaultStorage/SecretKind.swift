/// What a secret's value is, when it is more than bytes to hand out: a one-time code seed.
///
/// A kind is data the stores keep beside the value (the vault document's `kind`, the Secret
/// Service attribute `vault.kind`, OpenBao's `vault_kind` data field), so that it survives every
/// backend, a migration, and an export. A plain secret has no kind. The kinds vault knows are
/// declared here, once; a store may hold one a newer vault wrote, which is kept as it is and
/// makes the secret unreadable as a plain value (``Vault/get(_:allowExpired:)``).
public struct SecretKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The kind as stored: 1 to 32 bytes of lowercase ASCII letters, digits and `-`.
    public let rawValue: String

    /// The kind spelled `rawValue`, or nil when that is not a kind's spelling.
    public init?(rawValue: String) {
        guard (1...32).contains(rawValue.utf8.count),
            rawValue.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    public var description: String { rawValue }

    /// A time-based one-time code seed (RFC 6238): the value is an `otpauth://totp/` URI.
    public static let totp = SecretKind(known: "totp")
    /// A counter-based one-time code seed (RFC 4226): the value is an `otpauth://hotp/` URI,
    /// whose counter is the next one to use.
    public static let hotp = SecretKind(known: "hotp")

    /// The kinds this vault knows.
    public static let known: [SecretKind] = [.totp, .hotp]

    /// Whether the value is a one-time code seed (``OneTimeCodeSeed``).
    public var isOneTimeCode: Bool { self == .totp || self == .hotp }
}
