import VaultSecureBytes
public import VaultStorage

/// A reference to a secret, `vault://SERVICE/NAME`, as written in dotenv files and templates;
/// `vault-otp://SERVICE/NAME` stands for a code of the one-time code secret NAME instead.
///
/// SERVICE is the first path segment: a `/` in it is written `%2F` and a `%` is written `%25`
/// (any `%XX` is decoded). NAME is everything after that first `/`, taken literally, `/`
/// included: `vault://github.com/ci/npm-token` names `ci/npm-token` in the service `github.com`.
public struct SecretReference: Hashable, Sendable, CustomStringConvertible {
    /// What a reference to a value starts with.
    public static let prefix = "vault://"
    /// What a reference to a one-time code starts with.
    public static let oneTimeCodePrefix = "vault-otp://"

    /// The secret the reference names.
    public let name: SecretName
    /// Whether the reference stands for a one-time code of the secret (``Vault/oneTimeCode(_:minValid:clock:)``)
    /// rather than its value.
    public let isOneTimeCode: Bool

    public init(name: SecretName, isOneTimeCode: Bool = false) {
        self.name = name
        self.isOneTimeCode = isOneTimeCode
    }

    /// Parses `vault://SERVICE/NAME`; anything else is a usage error quoting the text (a
    /// reference, never a value).
    public init(parsing text: String) throws(VaultError) {
        isOneTimeCode = text.hasPrefix(Self.oneTimeCodePrefix)
        guard isOneTimeCode || text.hasPrefix(Self.prefix) else {
            throw VaultError(.usage, "'\(text)' is not a reference like vault://SERVICE/NAME")
        }
        let path = text.dropFirst(isOneTimeCode ? Self.oneTimeCodePrefix.count : Self.prefix.count)
        guard let slash = path.firstIndex(of: "/"), slash != path.startIndex, path.index(after: slash) != path.endIndex
        else {
            throw VaultError(.usage, "'\(text)' is not a reference like vault://SERVICE/NAME (both parts are needed)")
        }
        guard let service = Self.percentDecoded(path[..<slash]) else {
            throw VaultError(.usage, "'\(text)': the service has a '%' that is not %XX of UTF-8 text (write % as %25)")
        }
        name = try SecretName(service: service, account: String(path[path.index(after: slash)...]))
    }

    /// Whether `bytes` are meant as a reference: they start with `vault://` or `vault-otp://`.
    public static func looksLikeReference(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: prefix.utf8) || bytes.starts(with: oneTimeCodePrefix.utf8)
    }

    /// The reference as text: SERVICE percent-encoded where needed, NAME as it is.
    public var description: String {
        var service = ""
        for character in name.service {
            switch character {
            case "%": service += "%25"
            case "/": service += "%2F"
            default: service.append(character)
            }
        }
        return (isOneTimeCode ? Self.oneTimeCodePrefix : Self.prefix) + service + "/" + name.account
    }

    /// `text` with each `%XX` decoded, or nil if a `%` is not followed by two hex digits or the
    /// result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.popFirst().flatMap(hexValue), let low = utf8.popFirst().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Vault {
    /// The values of `references`, each read once, in a table by reference. Fails on the first
    /// one that is missing (`.notFound`) or expired (`.expired`, unless `allowExpired`), before
    /// the caller has used any value; `context` names where the failing reference was written.
    func resolve(
        _ references: [(reference: SecretReference, context: String)], allowExpired: Bool
    ) throws(VaultError) -> [SecretReference: SecureBytes] {
        var values: [SecretReference: SecureBytes] = [:]
        for (reference, context) in references where values[reference] == nil {
            do throws(VaultError) {
                values[reference] =
                    reference.isOneTimeCode
                    ? try oneTimeCode(reference.name) : try get(reference.name, allowExpired: allowExpired).value
            } catch {
                throw error.withMessage("\(context): \(reference): \(error.message)")
            }
        }
        return values
    }
}
