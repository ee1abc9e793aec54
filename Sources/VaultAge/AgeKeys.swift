internal import Crypto
public import VaultSecureBytes

/// The 16-byte key that encrypts a file's payload: recipients wrap it into stanzas, identities
/// unwrap it. Only VaultAge can read its bytes; swift-crypto zeroes them when the last copy goes.
public struct FileKey: Sendable {
    let key: SymmetricKey
    /// Who gave the key without proving it belongs to the stanza (an age plugin program, which
    /// answers with a bare key), for the error when the header's MAC then refuses it; nil when
    /// the stanza's own authentication checked it (X25519, scrypt, SSH, hybrid).
    let unverifiedSource: String?

    init(_ key: SymmetricKey, unverifiedSource: String? = nil) {
        self.key = key
        self.unverifiedSource = unverifiedSource
    }
}

/// Someone a file is encrypted to: one kind of age recipient (X25519, scrypt, SSH, ...).
///
/// A kind is a type conforming to this protocol, made from text by the one table in
/// `KeyKinds.swift`; code above VaultAge describes a recipient through these properties and never
/// asks which kind it is.
public protocol AgeRecipient: Sendable {
    /// What the key is, for people: `age public key age1...`, `ssh-ed25519 key SHA256:... (alice)`.
    /// Never secret.
    var description: String { get }
    /// The stanza types this recipient writes.
    var stanzaTypes: [StanzaType] { get }
    /// Whether this must be the file's only recipient (a passphrase: age's rule for scrypt).
    var mustBeAlone: Bool { get }
    /// Whether this recipient resists a quantum computer; age refuses to mix such recipients with
    /// classic ones, since a classic stanza would undo the protection.
    var isPostQuantum: Bool { get }
    /// Wraps the file key for this recipient into one or more stanzas.
    func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza]
    /// Recipients of this type with the same non-nil group are wrapped in one call of
    /// ``wrap(_:for:)``: the keys of one age plugin share one run of the plugin (one PIN, one
    /// touch), as the age plugin protocol intends. Nil (the default): wrapped on its own.
    var group: String? { get }
    /// Wraps the file key for `recipients`, all of one ``group``, in one go; the default wraps
    /// each in turn.
    static func wrap(_ fileKey: FileKey, for recipients: [Self]) throws(AgeError) -> [Stanza]
    /// Whether `stanza` was plausibly written for this recipient, judged from what the stanza
    /// shows (an SSH stanza's key tag); false when a stanza shows nothing about its recipient.
    func recognizes(_ stanza: Stanza) -> Bool
    /// The recipient as one line of a recipients file, which ``Age/parseRecipient(_:)`` reads
    /// back; nil when it must not be written down (a passphrase).
    var recipientLine: String? { get }
}

/// Something that can unwrap a file key: one kind of age identity (X25519, scrypt, SSH, ...).
public protocol AgeIdentity: Sendable {
    /// What the key is, for people, e.g. `ssh-ed25519 key SHA256:... (alice)`. Never secret.
    var description: String { get }
    /// The stanza types this identity reads; it ignores all others.
    var stanzaTypes: [StanzaType] { get }
    /// Whether unwrapping needs a person: a passphrase typed for an encrypted SSH key, a PIN or a
    /// touch for a hardware key. A caller may keep the unwrapped file key to ask less often.
    var needsPerson: Bool { get }
    /// The recipient a new file for this identity is encrypted to (its public key).
    func matchingRecipient() throws(AgeError) -> any AgeRecipient
    /// Unwraps the file key from the first stanza addressed to this identity; nil when none is.
    ///
    /// A malformed stanza of a type this identity reads is a `.header` error, found before any
    /// key is tried; stanzas of other types are ignored.
    func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey?
    /// Identities of this type with the same non-nil group are tried in one call of
    /// ``unwrap(_:with:)``: the keys of one age plugin share one run of the plugin. Nil (the
    /// default): tried on its own.
    var group: String? { get }
    /// Unwraps the file key with any of `identities`, all of one ``group``, in one go; the
    /// default tries each in turn, as ``unwrap(_:)`` would.
    static func unwrap(_ stanzas: [Stanza], with identities: [Self]) throws(AgeError) -> FileKey?
}

extension AgeRecipient {
    public var mustBeAlone: Bool { false }
    public var isPostQuantum: Bool { false }
    public func recognizes(_ stanza: Stanza) -> Bool { false }
    public var recipientLine: String? { nil }
    public var group: String? { nil }

    public static func wrap(_ fileKey: FileKey, for recipients: [Self]) throws(AgeError) -> [Stanza] {
        var stanzas: [Stanza] = []
        for recipient in recipients { stanzas += try recipient.wrap(fileKey) }
        return stanzas
    }
}

extension AgeIdentity {
    public var needsPerson: Bool { false }
    public var group: String? { nil }

    public static func unwrap(_ stanzas: [Stanza], with identities: [Self]) throws(AgeError) -> FileKey? {
        for identity in identities {
            if let fileKey = try identity.unwrap(stanzas) { return fileKey }
        }
        return nil
    }
}

/// How a key asks a person for something while it is being used (an encrypted SSH key's
/// passphrase). The executable answers at the terminal; without one, `secret` returns nil and
/// the key fails with `.cannotAsk`. The library itself never prompts.
public struct AgePrompter: Sendable {
    /// Asks for a secret (shown as `prompt`, not echoed); nil when nobody can answer.
    public var secret: @Sendable (_ prompt: String) throws(AgeError) -> SecureBytes?
    /// How plugin keys (`age1NAME1...`, `AGE-PLUGIN-NAME-1...`) start their plugin and have its
    /// questions answered; nil: plugin keys are refused as unsupported.
    public var plugins: PluginHost?

    public init(
        plugins: PluginHost? = nil, secret: @escaping @Sendable (_ prompt: String) throws(AgeError) -> SecureBytes?
    ) {
        self.secret = secret
        self.plugins = plugins
    }

    /// Nobody to ask: every question fails with `.cannotAsk`, and plugin keys are refused.
    public static let nobody = AgePrompter(secret: { (_) throws(AgeError) in nil })
}
