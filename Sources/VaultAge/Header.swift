internal import Crypto
internal import VaultSecureBytes

/// The textual age header: version line, recipient stanzas and the MAC line.
struct Header {
    static let versionLine = "age-encryption.org/v1"
    static let versionPrefix = "age-encryption.org/"
    /// Base64 columns per body line; a stanza body ends with the first shorter line.
    static let columnsPerLine = 64
    static let bytesPerLine = columnsPerLine / 4 * 3
    /// The largest header read, version line through MAC line (docs/file-format.md, "Limits").
    ///
    /// A hostile file cannot make the parser scan, copy or keep more than this, however long its
    /// lines are; real headers are a few hundred bytes per recipient.
    static let maximumSize = 1 << 20
    /// The most recipient stanzas a header may hold: each X25519 stanza costs a key agreement to try.
    static let maximumStanzas = 1024

    var stanzas: [Stanza]
    /// The MAC from the closing line.
    var mac: [UInt8]
    /// The bytes the MAC covers: everything up to and including the closing line's `---`.
    var macInput: ArraySlice<UInt8>
    /// The length of the whole header, closing line included; the payload starts here.
    var length: Int

    /// Parses the header at the start of `file`, enforcing the v1 grammar exactly.
    static func parse(_ file: [UInt8]) throws(AgeError) -> Header {
        var reader = LineReader(bytes: file, limit: maximumSize)
        guard let version = reader.nextLine() else {
            throw .header(file.isEmpty ? "empty file" : "not an age file: no version line")
        }
        guard version.elementsEqual(versionLine.utf8) else {
            if version.starts(with: versionPrefix.utf8) { throw .header("unsupported age format version") }
            throw .header("not an age file: bad version line")
        }
        var stanzas: [Stanza] = []
        while true {
            let lineStart = reader.offset
            guard let line = reader.nextLine() else { throw reader.endError("header ends before its MAC line") }
            if line.starts(with: "---".utf8) {
                let mac = try parseMACLine(line)
                guard !stanzas.isEmpty else { throw .header("header has no recipient stanzas") }
                return Header(
                    stanzas: stanzas, mac: mac, macInput: file[..<(lineStart + 3)], length: reader.offset)
            }
            guard stanzas.count < maximumStanzas else {
                throw .header("header has more than \(maximumStanzas) recipient stanzas")
            }
            stanzas.append(try parseStanza(argumentLine: line, stanzaNumber: stanzas.count + 1, reader: &reader))
        }
    }

    /// Encodes stanzas into a complete header, MAC line included, keyed by the file key.
    static func encode(_ stanzas: [Stanza], fileKey: SymmetricKey) -> [UInt8] {
        var output = Array((versionLine + "\n").utf8)
        for stanza in stanzas {
            output += Array(("-> " + stanza.arguments.joined(separator: " ") + "\n").utf8)
            let body = Array(Base64.encodeUnpadded(stanza.body).utf8)
            var start = 0
            // Full 64-column lines, then a final shorter line, which is empty when the body fills its lines.
            while body.count - start >= columnsPerLine {
                output += body[start..<(start + columnsPerLine)]
                output.append(UInt8(ascii: "\n"))
                start += columnsPerLine
            }
            output += body[start...]
            output.append(UInt8(ascii: "\n"))
        }
        output += Array("---".utf8)
        let mac = computeMAC(output[...], fileKey: fileKey)
        output += Array((" " + Base64.encodeUnpadded(mac) + "\n").utf8)
        return output
    }

    /// HMAC-SHA-256 over the header up to `---`, keyed with HKDF(file key, info "header").
    static func computeMAC(_ macInput: ArraySlice<UInt8>, fileKey: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: macInput, using: macKey(fileKey)))
    }

    /// Checks the MAC in constant time.
    func verifyMAC(fileKey: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: macInput, using: Header.macKey(fileKey))
    }

    private static func macKey(_ fileKey: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, salt: [UInt8](), info: Array("header".utf8), outputByteCount: 32)
    }

    /// `--- ` followed by the canonical unpadded base64 of 32 bytes, nothing else.
    private static func parseMACLine(_ line: ArraySlice<UInt8>) throws(AgeError) -> [UInt8] {
        guard line.starts(with: "--- ".utf8) else { throw .header("malformed MAC line") }
        guard let mac = Base64.decodeUnpadded(line.dropFirst(4)), mac.count == 32 else {
            throw .header("malformed MAC line: not the canonical base64 of a 32-byte MAC")
        }
        return mac
    }

    private static func parseStanza(
        argumentLine line: ArraySlice<UInt8>, stanzaNumber: Int, reader: inout LineReader
    ) throws(AgeError) -> Stanza {
        guard line.starts(with: "-> ".utf8) else {
            throw .header("stanza \(stanzaNumber): line does not start with \"-> \"")
        }
        let arguments = line.dropFirst(3).split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        for argument in arguments {
            // Arguments are one or more VCHARs (0x21...0x7E); empty ones come from doubled spaces.
            guard !argument.isEmpty, argument.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                throw .header("stanza \(stanzaNumber): empty argument or invalid character")
            }
        }
        var body: [UInt8] = []
        while true {
            guard let bodyLine = reader.nextLine() else {
                throw reader.endError("stanza \(stanzaNumber): header ends inside the stanza body")
            }
            guard bodyLine.count <= columnsPerLine else {
                throw .header("stanza \(stanzaNumber): body line longer than \(columnsPerLine) columns")
            }
            guard let decoded = Base64.decodeUnpadded(bodyLine) else {
                throw .header(
                    "stanza \(stanzaNumber): body line is not canonical base64 or the body has no final short line")
            }
            guard decoded.count <= bytesPerLine else {
                throw .header("stanza \(stanzaNumber): body line longer than \(columnsPerLine) columns")
            }
            body += decoded
            if decoded.count < bytesPerLine { break }
        }
        return Stanza(arguments: arguments.map { String(decoding: $0, as: UTF8.self) }, body: body)
    }
}

/// Splits bytes into LF-terminated lines; a line without its LF is not returned.
///
/// Never looks past the first `limit` bytes, so a header line of any length costs at most `limit`.
struct LineReader {
    let bytes: [UInt8]
    let limit: Int
    private(set) var offset = 0

    init(bytes: [UInt8], limit: Int = .max) {
        self.bytes = bytes
        self.limit = limit
    }

    /// Whether the reader stopped because the next line would end past `limit`.
    var hitLimit: Bool { bytes.count > limit && bytes[offset..<limit].firstIndex(of: UInt8(ascii: "\n")) == nil }

    /// The next line without its LF, or nil when no complete line is left within `limit`.
    mutating func nextLine() -> ArraySlice<UInt8>? {
        let window = bytes[offset..<min(bytes.count, limit)]
        guard let end = window.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = bytes[offset..<end]
        offset = end + 1
        return line
    }

    /// The error for a header that ends early: `message`, or the size limit if that is what stopped it.
    func endError(_ message: String) -> AgeError {
        hitLimit ? .header("header is larger than \(limit) bytes (the limit)") : .header(message)
    }
}
