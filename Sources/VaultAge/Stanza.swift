/// One recipient stanza of an age header: its arguments (the first is the stanza type) and its
/// decoded body. Recipients write them and identities read them; the header parser has already
/// checked the syntax (arguments are non-empty VCHAR strings, the body is canonical base64).
public struct Stanza: Sendable, Equatable {
    /// The arguments of the `->` line; the first names the recipient type.
    public var arguments: [String]
    /// The decoded body.
    public var body: [UInt8]

    /// A stanza of `type` with these further arguments and this body.
    public init(type: String, arguments: [String], body: [UInt8]) {
        self.arguments = [type] + arguments
        self.body = body
    }

    init(arguments: [String], body: [UInt8]) {
        self.arguments = arguments
        self.body = body
    }

    /// The first argument, which names the recipient type (`X25519`, `scrypt`, ...).
    public var type: String { arguments[0] }

    /// The stanza's type, typed.
    public var kind: StanzaType { StanzaType(type) }
}
