/// The type of a recipient stanza: the first argument of its `->` line, which names how the file
/// key is wrapped. vault opens and writes the native types; any other is carried as its name.
public struct StanzaType: Hashable, Sendable, CustomStringConvertible {
    /// The type as written in the header (`X25519`, `scrypt`, a plugin's name).
    public let name: String

    public init(_ name: String) { self.name = name }

    /// An X25519 recipient (an `age1...` public key).
    public static let x25519 = StanzaType(X25519Recipient.stanzaType)
    /// A passphrase (scrypt); when present it is the header's only stanza.
    public static let scrypt = StanzaType(Scrypt.stanzaType)
    /// A post-quantum hybrid recipient (an `age1pq1...` public key, ML-KEM-768 + X25519).
    public static let mlkem768x25519 = StanzaType(HybridRecipient.stanzaType)

    public var description: String { name }
}

extension Stanza {
    /// The stanza's type, typed.
    var kind: StanzaType { StanzaType(type) }
}
