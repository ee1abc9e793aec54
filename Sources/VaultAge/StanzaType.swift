/// The type of a recipient stanza: the first argument of its `->` line, which names how the file
/// key is wrapped. The kinds vault reads and writes are declared in `KeyKinds.swift`; any other
/// type is carried as its name.
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

    /// Whether vault has an identity kind that reads this type.
    public var isReadable: Bool { KeyKinds.stanzaNouns[self] != nil }

    /// What stanzas of these types mean to a person, in header order of first appearance:
    /// "a passphrase", "2 age public keys", "1 age public key and 1 SSH ed25519 key",
    /// "... and 1 stanza(s) of other types".
    public static func describe(_ types: [StanzaType]) -> String {
        if types == [.scrypt] { return "a passphrase" }
        var order: [StanzaType] = []
        var counts: [StanzaType: Int] = [:]
        var others = 0
        for type in types {
            guard KeyKinds.stanzaNouns[type] != nil, type != .scrypt else {
                others += 1
                continue
            }
            if counts[type] == nil { order.append(type) }
            counts[type, default: 0] += 1
        }
        // Say "0 age public keys" rather than nothing when no stanza is of a known kind.
        if order.isEmpty && others == 0 { order = [.x25519] }
        var parts = order.map { type in
            let count = counts[type, default: 0]
            let noun = KeyKinds.stanzaNouns[type] ?? (type.name, type.name)
            return "\(count) \(count == 1 ? noun.singular : noun.plural)"
        }
        if others > 0 { parts.append("\(others) stanza(s) of other types") }
        return parts.joined(separator: " and ")
    }
}
