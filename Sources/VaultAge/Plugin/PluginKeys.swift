internal import Synchronization

/// A recipient handled by a plugin: `age1NAME1...`, or a plugin identity used as a recipient
/// (age encrypts to `AGE-PLUGIN-NAME-1...` through `add-identity`).
public struct PluginRecipient: AgeRecipient {
    /// The plugin's name: the program is `age-plugin-NAME`.
    public let name: String
    /// The recipient (or identity) exactly as given, for `add-recipient` (`add-identity`).
    let encoding: String
    /// Whether ``encoding`` is an identity.
    let isIdentity: Bool
    /// How the plugin is started and its questions answered.
    let host: PluginHost

    /// Parses `age1NAME1...`; throws `.invalidKey` for anything else.
    public init(_ text: String, host: PluginHost) throws(AgeError) {
        let decoded = try Bech32.decode(text)
        guard decoded.hrp.hasPrefix("age1"), decoded.hrp.count > 4 else {
            throw .invalidKey("not an age plugin recipient (age1NAME1...)")
        }
        self.name = try Self.validName(String(decoded.hrp.dropFirst(4)))
        self.encoding = text.lowercased()
        self.isIdentity = false
        self.host = host
    }

    /// The recipient of a plugin identity: the plugin is asked to wrap to the identity itself.
    public init(identity: PluginIdentity) {
        self.name = identity.name
        self.encoding = identity.encoding
        self.isIdentity = true
        self.host = identity.host
    }

    public var description: String {
        isIdentity ? "age-plugin-\(name) identity" : "age-plugin-\(name) recipient \(encoding)"
    }

    /// Empty: the plugin decides which stanza types it writes.
    public var stanzaTypes: [StanzaType] { [] }

    /// Runs `age-plugin-NAME` in `recipient-v1` for this one recipient.
    public func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza] {
        try Self.wrap(fileKey, for: [self])
    }

    /// The plugin's name: all its recipients and identities are wrapped to in one run.
    public var group: String? { name }

    /// Runs `age-plugin-NAME` in `recipient-v1` once for `recipients`, all of that plugin
    /// (``group``): one `add-recipient` or `add-identity` each, as the spec has a client do.
    public static func wrap(_ fileKey: FileKey, for recipients: [PluginRecipient]) throws(AgeError) -> [Stanza] {
        guard let first = recipients.first else { return [] }
        return try PluginClient.wrap(fileKey.key, to: recipients, name: first.name, host: first.host)
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
/// Unwrapping with it may need a person (a PIN, a confirmation): ``AgeIdentity/needsPerson``
/// says whether it did.
public struct PluginIdentity: AgeIdentity {
    /// The plugin's name: the program is `age-plugin-NAME`.
    public let name: String
    /// The identity exactly as given (uppercase, as age writes it), for `add-identity`.
    let encoding: String
    /// How the plugin is started and its questions answered.
    let host: PluginHost
    /// Whether a person answered a question of the plugin's while it unwrapped a key with this
    /// identity; shared by the copies of this value.
    private let asked = PersonAsked()

    /// Set once, read after unwrapping; a Mutex because identities are Sendable.
    private final class PersonAsked: Sendable {
        let answered = Mutex(false)
    }

    /// Parses `AGE-PLUGIN-NAME-1...`; throws `.invalidKey` for anything else. Messages never
    /// quote the identity.
    public init(_ text: String, host: PluginHost) throws(AgeError) {
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
        self.host = host
    }

    public var description: String { "age-plugin-\(name) identity" }

    /// Empty: the plugin is given every stanza and decides which types it reads.
    public var stanzaTypes: [StanzaType] { [] }

    /// Whether a person answered one of the plugin's questions (a PIN, a value, a confirmation)
    /// when it unwrapped a key with this identity: a plugin that asked nothing (a key without a
    /// PIN, or whose questions nobody answered) gave its key without a person.
    public var needsPerson: Bool { asked.answered.withLock { $0 } }

    /// The identity itself, wrapped to through `add-identity`, as age does.
    public func matchingRecipient() -> any AgeRecipient { PluginRecipient(identity: self) }

    /// Runs `age-plugin-NAME` in `identity-v1`. Only this local identity decides that a plugin
    /// runs, and which: never a stanza type in the header.
    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        try Self.unwrap(stanzas, with: [self])
    }

    /// The plugin's name: all its identities are tried in one run.
    public var group: String? { name }

    /// Runs `age-plugin-NAME` in `identity-v1` once for `identities`, all of that plugin
    /// (``group``), with every stanza of the file: a hardware key holding two of them asks for
    /// its PIN once.
    public static func unwrap(_ stanzas: [Stanza], with identities: [PluginIdentity]) throws(AgeError) -> FileKey? {
        guard let first = identities.first,
            let unwrapped = try PluginClient.unwrap(stanzas, with: identities, name: first.name, host: first.host)
        else { return nil }
        if unwrapped.personAnswered {
            for identity in identities { identity.asked.answered.withLock { $0 = true } }
        }
        return FileKey(unwrapped.fileKey, unverifiedSource: "age-plugin-\(first.name)")
    }
}
