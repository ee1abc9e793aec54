public import VaultSecureBytes

/// Reads plugin protocol stanzas from a byte stream that arrives in pieces of any size.
///
/// The grammar is the age header's (one `-> ` line of VCHAR arguments, then canonical base64
/// body lines of at most 64 columns ending with a shorter one). A plugin is another program: its
/// output is bounded (``maximumLine``, ``maximumBody``) and checked before it is believed, and
/// anything else is a `.plugin` error whose message says what was wrong, never what was sent.
public struct PluginStanzaReader {
    /// The longest line accepted, LF excluded: far above any real stanza's arguments.
    public static let maximumLine = 1 << 16
    /// The largest body accepted: a message, a PIN or a wrapped key is much smaller.
    public static let maximumBody = 1 << 20

    private var buffer = SecureBytes()
    private var start = 0
    private var ended = false
    /// Where more bytes come from; an empty answer means the stream has ended.
    private let receive: () throws(AgeError) -> SecureBytes

    /// A reader of the bytes `receive` returns, in order.
    public init(receive: @escaping () throws(AgeError) -> SecureBytes) {
        self.receive = receive
    }

    /// The next stanza; throws `.plugin` when the stream ends or breaks the grammar.
    public mutating func next() throws(AgeError) -> PluginStanza {
        guard let first = try nextLine() else { throw .plugin("closed its output in the middle of the conversation") }
        guard first.starts(with: "-> ".utf8) else { throw .plugin("answered a line that is not a stanza") }
        let fields = first.dropFirst(3).split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        for field in fields where field.isEmpty || !field.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) {
            throw .plugin("answered a stanza with an empty argument or an invalid character")
        }
        var stanza = PluginStanza(String(decoding: fields[0], as: UTF8.self))
        stanza.arguments += fields.dropFirst().map { String(decoding: $0, as: UTF8.self) }
        while true {
            guard let line = try nextLine() else { throw .plugin("closed its output inside a stanza body") }
            guard line.count <= Header.columnsPerLine, var decoded = Base64.decodeUnpadded(line),
                decoded.count <= Header.bytesPerLine
            else {
                throw .plugin("answered a stanza body that is not canonical base64 in 64-column lines")
            }
            guard stanza.body.count + decoded.count <= Self.maximumBody else {
                throw .plugin("answered a stanza body larger than \(Self.maximumBody) bytes")
            }
            let full = decoded.count == Header.bytesPerLine
            stanza.body.append(contentsOf: SecureBytes(taking: &decoded))
            if !full { return stanza }
        }
    }

    /// The next LF-terminated line without its LF, or nil at the end of the stream.
    private mutating func nextLine() throws(AgeError) -> SecureBytes? {
        var searched = start
        while true {
            if let end = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = SecureBytes(buffer[start..<end])
                start = end + 1
                if start > 4096, start * 2 > buffer.count {
                    buffer.replaceSubrange(0..<start, with: EmptyCollection())
                    start = 0
                }
                return line
            }
            searched = buffer.count
            guard searched - start <= Self.maximumLine else {
                throw .plugin("answered a line longer than \(Self.maximumLine) bytes")
            }
            guard !ended else {
                if searched > start { throw .plugin("closed its output in the middle of a line") }
                return nil
            }
            let more = try receive()
            if more.isEmpty { ended = true } else { buffer.append(contentsOf: more) }
        }
    }
}
