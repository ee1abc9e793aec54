/// One error type for the age layer, thrown with typed throws: `throws(AgeError)`.
///
/// The message is a single line meant for people; it never contains key material or plaintext.
public struct AgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, stable enough to branch on.
    public enum Kind: Sendable, Equatable {
        /// A malformed or unsupported header: version line, stanza syntax, recipient stanza arguments.
        case header
        /// The header MAC does not verify: the file key was unwrapped, but the header was altered.
        case hmac
        /// No identity could unwrap the file key (wrong passphrase or wrong key).
        case noMatch
        /// A STREAM failure: bad tag, truncation, trailing data, missing final chunk.
        case payload
        /// Malformed ASCII armor.
        case armor
        /// An identity or recipient string, or an identity or recipients file, that cannot be parsed or used.
        case invalidKey
        /// An scrypt work factor above the caller's limit.
        case workFactor
        /// A key of a kind vault recognises but cannot use (`ecdsa-sha2-*` SSH keys, say).
        case unsupportedKey
        /// Unwrapping needs a person (an encrypted key's passphrase, a plugin's PIN or touch) and
        /// nobody can be asked.
        case cannotAsk
        /// An age plugin could not do its part: not found, would not start, crashed, hung, or
        /// answered something that is not the plugin protocol.
        case plugin
        /// An age plugin refused: it answered `error` (a revoked key, a wrong PIN).
        case pluginRefused
        /// An age plugin answered a file key that the header's MAC refuses: the plugin's key does
        /// not open the file (a plugin's answer carries no proof, unlike a stanza's own
        /// authentication; a header changed after the plugin's stanza was written looks the same).
        case pluginKeyMismatch
    }

    /// What the user can do about a key the age layer refuses, as data: the library states the
    /// fact, the tool words the way out (a command of another program, with the key's path).
    public enum Remedy: Sendable, Equatable {
        /// An SSH key in a format other than OpenSSH's own (PEM): convert it to OpenSSH's.
        case convertSSHKeyToOpenSSHFormat
        /// An SSH key encrypted with a cipher other than aes256-ctr: encrypt it again with that one.
        case reencryptSSHKeyWithAES256CTR
        /// A hardware key's tagged recipient (age1tag1...): its age plugin's recipient does the job.
        case usePluginRecipient
    }

    /// What went wrong.
    public let kind: Kind
    /// A one-line explanation for people: what happened, never what to do.
    public let message: String
    /// What the user can do, when the age layer knows.
    public let remedy: Remedy?

    /// Creates an error of the given kind with a one-line message.
    public init(kind: Kind, message: String, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
    }

    /// The message.
    public var description: String { message }
}

extension AgeError {
    static func header(_ message: String) -> AgeError { AgeError(kind: .header, message: message) }
    static func payload(_ message: String) -> AgeError { AgeError(kind: .payload, message: message) }
    static func armor(_ message: String) -> AgeError { AgeError(kind: .armor, message: message) }
    static func invalidKey(_ message: String, remedy: Remedy? = nil) -> AgeError {
        AgeError(kind: .invalidKey, message: message, remedy: remedy)
    }
    static func plugin(_ message: String) -> AgeError { AgeError(kind: .plugin, message: message) }
    static func unsupportedKey(_ message: String, remedy: Remedy? = nil) -> AgeError {
        AgeError(kind: .unsupportedKey, message: message, remedy: remedy)
    }
}
