/// The address of a secret, like a keychain item: a service and an account.
///
/// On the command line the account is the NAME and the service comes from `--service`,
/// `VAULT_SERVICE` or the default `vault`.
public struct SecretName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The service the secret belongs to, e.g. `vault` or `github.com`.
    public let service: String
    /// The account (the NAME on the command line), e.g. `ci/npm-token`.
    public let account: String

    /// The service used when none is given.
    public static let defaultService = "vault"
    /// The largest name, in UTF-8 bytes, of a service or an account.
    public static let maximumByteCount = 255

    /// Creates a name after checking both parts with ``validate(_:what:)``.
    public init(service: String, account: String) throws(VaultError) {
        try Self.validate(service, what: "service")
        try Self.validate(account, what: "name")
        self.service = service
        self.account = account
    }

    /// Creates a name whose parts were already validated (read back from a store we wrote).
    package init(unchecked service: String, account: String) {
        self.service = service
        self.account = account
    }

    /// Checks that a service or account is 1 to 255 bytes of UTF-8 without control characters.
    public static func validate(_ part: String, what: String) throws(VaultError) {
        let count = part.utf8.count
        if count == 0 {
            throw VaultError(
                .usage, "the \(what) is empty", remedy: .giveAccepted(forms: "1 to \(maximumByteCount) bytes of UTF-8"))
        }
        if count > maximumByteCount {
            throw VaultError(.usage, "the \(what) is \(count) bytes long; the limit is \(maximumByteCount)")
        }
        // Plain ASCII is checked by its bytes (controls are below 0x20 and 0x7F); only other text
        // needs the Unicode tables, which cost a thousand instructions a name in `vault ls`.
        var plain = true
        for byte in part.utf8 {
            if byte >= 0x80 {
                plain = false
                break
            }
            if byte < 0x20 || byte == 0x7F {
                throw VaultError(.usage, "the \(what) contains a control character; names must be printable")
            }
        }
        if !plain, part.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw VaultError(.usage, "the \(what) contains a control character; names must be printable")
        }
    }

    public static func < (lhs: SecretName, rhs: SecretName) -> Bool {
        (lhs.service, lhs.account) < (rhs.service, rhs.account)
    }

    public var description: String { "\(service)/\(account)" }
}
