/// A recipient handled by a plugin: `age1NAME1...`, or a plugin identity used as a recipient
/// (age encrypts to `AGE-PLUGIN-NAME-1...` through `add-identity`).
public struct PluginRecipient: Sendable, Equatable {
    /// The plugin's name: the program is `age-plugin-NAME`.
    public let name: String
    /// The recipient (or identity) exactly as given, for `add-recipient` (`add-identity`).
    let encoding: String
    /// Whether ``encoding`` is an identity.
    let isIdentity: Bool

    /// Parses `age1NAME1...`; throws `.invalidKey` for anything else.
    public init(_ text: String) throws(AgeError) {
        let decoded = try Bech32.decode(text)
        guard decoded.hrp.hasPrefix("age1"), decoded.hrp.count > 4 else {
            throw .invalidKey("not an age plugin recipient (age1NAME1...)")
        }
        self.name = try Self.validName(String(decoded.hrp.dropFirst(4)))
        self.encoding = text.lowercased()
        self.isIdentity = false
    }

    /// The recipient of a plugin identity: the plugin is asked to wrap to the identity itself.
    public init(identity: PluginIdentity) {
        self.name = identity.name
        self.encoding = identity.encoding
        self.isIdentity = true
    }

    /// Whether `text` looks like a plugin recipient: age1 followed by a name and a second "1"
    /// (Bech32 data never contains "1", so `age1` + data alone is an X25519 key).
    public static func looksLikePlugin(_ text: String) -> Bool {
        text.lowercased().hasPrefix("age1") && text.dropFirst(4).contains("1")
            && !text.lowercased().hasPrefix("age1pq1")
    }

    /// A plugin name that is safe as the end of a program name: lowercase letters, digits and
    /// `.`, `_`, `+`, `-` (never `/`, so it cannot name a path), not starting with `.` or `-`.
    static func validName(_ name: String) throws(AgeError) -> String {
        let allowed = name.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "._+-".utf8.contains(byte)
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, !name.hasPrefix("."), !name.hasPrefix("-") else {
            throw .invalidKey("the plugin name is empty, too long or not made of a-z, 0-9, '.', '_', '+', '-'")
        }
        return name
    }
}

/// An identity handled by a plugin: `AGE-PLUGIN-NAME-1...`.
///
/// Unwrapping with it may need a person (a PIN, a touch of a hardware key): ``AgeIdentity/needsPerson``.
public struct PluginIdentity: Sendable, Equatable {
    /// The plugin's name: the program is `age-plugin-NAME`.
    public let name: String
    /// The identity exactly as given (uppercase, as age writes it), for `add-identity`.
    let encoding: String

    /// Parses `AGE-PLUGIN-NAME-1...`; throws `.invalidKey` for anything else. Messages never
    /// quote the identity.
    public init(_ text: String) throws(AgeError) {
        let decoded: (hrp: String, data: [UInt8])
        do {
            decoded = try Bech32.decode(text)
        } catch {
            throw .invalidKey("malformed age plugin identity (\(error.message))")
        }
        guard decoded.hrp.hasPrefix("age-plugin-"), decoded.hrp.hasSuffix("-"), decoded.hrp.count > 12 else {
            throw .invalidKey("not an age plugin identity (AGE-PLUGIN-NAME-1...)")
        }
        self.name = try PluginRecipient.validName(String(decoded.hrp.dropFirst(11).dropLast()))
        self.encoding = text.uppercased()
    }

    /// Whether `text` looks like a plugin identity (what an identity file line is checked against).
    public static func looksLikePlugin(_ text: String) -> Bool { text.uppercased().hasPrefix("AGE-PLUGIN-") }

    /// The recipient that wraps to this identity.
    public var recipient: PluginRecipient { PluginRecipient(identity: self) }
}
