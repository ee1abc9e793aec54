import VaultSecureBytes

@testable import VaultAge
@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultStorage

/// What the fuzz targets in Tests/Fuzz do with one input, and what `FuzzRegressionTests` replays.
///
/// Each function feeds the bytes to every parser that may see them and checks properties that
/// must hold for any input; it returns a description of the first broken one, or nil. Parsers may
/// throw, never crash. `make fuzz` compiles this file into the fuzzers, so the fuzzers and the
/// regression test can never disagree about what is checked.
enum FuzzHarness {
    /// A published test key (not a secret): the seed corpus is encrypted to it, so the fuzzer
    /// starts from files that open and can reach the payload and the document decoder.
    static let identity = try! X25519Identity(
        "AGE-SECRET-KEY-18KVV052C9AS9VERWTSRNGCK5CZD8UXRA9S9FXQJVPZPUNS33V9GQ729AUL")
    /// The seed corpus's passphrase; work factors above 10 are refused before scrypt runs.
    static let identities: [any AgeIdentity] = [
        identity, ScryptIdentity(passphrase: SecureBytes("fuzz".utf8), maxWorkFactor: 10),
    ]
    /// A fixed payload key, for the STREAM decoder on raw input.
    static let streamKey = Stream.payloadKey(
        fileKey: try! Age.encryptReturningEnvelope([], to: [identity.recipient]).envelope.fileKey,
        nonce: [UInt8](repeating: 0, count: Stream.nonceSize))

    /// The age layer: armor, header, the whole file, and STREAM.
    static func age(_ bytes: [UInt8]) -> String? {
        if let header = try? Header.parse(bytes) {
            guard header.length <= min(bytes.count, Header.maximumSize), header.stanzas.count <= Header.maximumStanzas,
                !header.stanzas.isEmpty
            else { return "a parsed header is out of bounds" }
        }
        if let types = try? Age.stanzaTypes(of: bytes), let header = try? Age.header(of: bytes) {
            guard !types.isEmpty, header.count <= Header.maximumSize else { return "header(of:) is out of bounds" }
        }
        if let binary = try? Armor.decode(bytes) {
            guard (try? Armor.decode(Armor.encode(binary))) == binary else { return "armor does not round-trip" }
        }
        if let failure = chunkedRead(bytes) { return failure }
        if let (plaintext, envelope) = try? Age.open(bytes, identities: identities) {
            // Sealing again under the same header must give a file that opens to the same plaintext.
            let again = Age.seal(plaintext, envelope: envelope)
            guard (try? Age.decrypt(again, identities: identities)) == plaintext else {
                return "a reseal does not open"
            }
            if let failure = document(plaintext.unprotectedArray) { return "in the payload: \(failure)" }
        }
        _ = try? Stream.decrypt(bytes[...], key: streamKey)
        return nil
    }

    /// The SSH key parsers: an OpenSSH private key file (armored or its binary), a public key
    /// line. Parsers may throw, never crash; a key that parses must open a file made for it.
    /// Protected keys are opened with the seeds' passphrase "fuzz" only at 1 or 2 bcrypt rounds,
    /// so an input cannot make one run take seconds.
    static func sshKey(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for file in [try? OpenSSHPrivateKey(binary: bytes), try? OpenSSHPrivateKey(text: text)] {
            guard let file, !file.isEncrypted || file.rounds <= 2 else { continue }
            guard let identity = try? file.identity(passphrase: SecureBytes("fuzz".utf8)) else { continue }
            guard let recipient = try? identity.matchingRecipient() else { return "a parsed key has no recipient" }
            guard let sealed = try? Age.encrypt([1], to: [recipient]),
                (try? Age.decrypt(sealed, identities: [identity])) == [1]
            else { return "a parsed key does not open a file made for it" }
        }
        for line in text.split(separator: "\n") {
            if let recipient = try? Age.parseRecipient(String(line)), let again = recipient.recipientLine {
                guard (try? Age.parseRecipient(again))?.recipientLine == again else {
                    return "a recipient line does not round-trip"
                }
            }
        }
        return nil
    }

    /// The vault document: decode, listing, lookup and encoding must agree with each other.
    static func document(_ bytes: [UInt8]) -> String? {
        let decoded = Result { () throws(VaultError) in try VaultDocument.decode(bytes) }
        let listed = Result { () throws(VaultError) in try VaultDocument.entries(in: bytes) }
        switch (decoded, listed) {
        case (.success(let records), .success(let entries)):
            guard records.map(\.entry) == entries else { return "entries(in:) disagrees with decode" }
            guard (try? VaultDocument.decode(VaultDocument.encode(records))) == records else {
                return "encode then decode changes the records"
            }
            for record in records where (try? VaultDocument.find(record.name, in: bytes)) != record {
                return "find disagrees with decode"
            }
        case (.failure(let error), .failure(let other)):
            guard error.code == .damaged, other.code == .damaged else { return "a bad document is not .damaged" }
            for message in [error.message, other.message] {
                guard message.utf8.count <= 1024, !message.unicodeScalars.contains(where: isUnprintable) else {
                    return "an error message that is too long or holds unprintable characters"
                }
            }
        default:
            return "decode and entries(in:) disagree on whether the document is valid"
        }
        if let probe = try? SecretName(service: "vault", account: "a") {
            _ = try? VaultDocument.find(probe, in: bytes)
        }
        return piecesRead(bytes, listed: listed)
    }

    /// The file store reads a document in pieces, as age chunks decrypt: every piece size must
    /// give what the whole document gives, for the listing and for lookups.
    static func piecesRead(_ bytes: [UInt8], listed: Result<[SecretEntry], VaultError>) -> String? {
        var names = (try? VaultDocument.decode(bytes).map(\.name)) ?? []
        if let probe = try? SecretName(service: "vault", account: "a") { names.append(probe) }
        for size in [1, 7, 4096] {
            let pieces = DocumentPieces(bytes: bytes, size: size)
            let listedInPieces = Result { () throws(VaultError) in try VaultDocument.entries(in: pieces) }
            guard listedInPieces == listed else { return "entries(in:) in pieces of \(size) differs" }
            for name in names {
                let whole = Result { () throws(VaultError) in try VaultDocument.find(name, in: bytes) }
                let inPieces = Result { () throws(VaultError) in try VaultDocument.find(name, in: pieces) }
                guard whole == inPieces else { return "find in pieces of \(size) differs" }
            }
        }
        return nil
    }

    /// The file store reads an age file chunk by chunk (AgePayloadReader): the outcome must be
    /// the one `Age.open` gives, unless the reader asks for the whole file.
    static func chunkedRead(_ bytes: [UInt8]) -> String? {
        let whole = Result { () throws(AgeError) in try Age.decrypt(bytes, identities: identities) }
        for prefixSize in [AgePayloadReader.prefixSize, 64] {
            let chunked = Result { () throws(AgeError) -> [UInt8]? in
                let prefix = Array(bytes.prefix(prefixSize))
                guard var reader = try AgePayloadReader(prefix: prefix, fileSize: bytes.count, identities: identities)
                else { return nil }
                var plaintext: [UInt8] = []
                while let range = reader.nextChunk {
                    let sealed = Array(bytes[range])
                    try sealed.withUnsafeBufferPointer { (buffer) throws(AgeError) in
                        try reader.open(UnsafeRawBufferPointer(buffer)) { plaintext.append(contentsOf: $0) }
                    }
                }
                return plaintext
            }
            switch (whole, chunked) {
            case (_, .success(nil)): continue
            case (.success(let a), .success(let b?)) where a == b: continue
            case (.failure(let a), .failure(let b)) where a.kind == b.kind: continue
            default: return "reading in chunks (prefix \(prefixSize)) differs from Age.open"
            }
        }
        return nil
    }

    /// The age plugin protocol: the stanza reader on bytes that arrive in pieces, and a whole
    /// `identity-v1` session with a plugin whose output is the input (the client's messages
    /// go nowhere). The reader must never crash, every stanza it returns must encode to bytes it
    /// reads back the same, and a session ends in a 16-byte file key, nil, or one-line error.
    static func plugin(_ bytes: [UInt8]) -> String? {
        let pieceSize = Int(bytes.first ?? 1) % 61 + 1
        var reader = PluginStanzaReader(receive: PluginBytes(bytes.dropFirst(), pieceSize: pieceSize).receive)
        while let stanza = try? reader.next() {
            guard stanza.body.count <= PluginStanzaReader.maximumBody else { return "a body over the limit was read" }
            var again = PluginStanzaReader(
                receive: PluginBytes(stanza.encoded.unprotectedArray[...], pieceSize: 7).receive)
            guard let read = try? again.next(), read == stanza else { return "a stanza does not read back as encoded" }
        }
        let host = PluginHost(launcher: PluginBytesLauncher(bytes: bytes), prompts: .nobody)
        do throws(AgeError) {
            _ = try Age.decrypt(pluginFile, identities: [try PluginIdentity(pluginIdentity, host: host)])
        } catch {
            if error.message.unicodeScalars.contains(where: isUnprintable) { return "a plugin error is not one line" }
        }
        return nil
    }

    /// A file the plugin session is asked to open (encrypted to the harness's X25519 key).
    static let pluginFile = try! Age.encrypt([], to: [identity.recipient])

    /// A published test identity of the test plugin (`Tests/Plugins/age-plugin-vaulttest`).
    static let pluginIdentity = "AGE-PLUGIN-VAULTTEST-1QQQPZG3NG32KVAUGNX4THNXAAMLSG236MG"

    /// Characters an error message must not carry to a terminal.
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

/// A document handed over in pieces of `size` bytes, as a file vault's age chunks hand it over.
struct DocumentPieces: DocumentChunks {
    let bytes: [UInt8]
    let size: Int

    func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Void) throws(VaultError) {
        var start = 0
        repeat {
            let piece = Array(bytes[start..<min(start + size, bytes.count)])
            try piece.withUnsafeBufferPointer { (buffer) throws(VaultError) in try body(buffer) }
            start += size
        } while start < bytes.count
    }
}

/// Bytes handed over in pieces of `pieceSize`, as a plugin's output arrives.
final class PluginBytes: PluginChannel {
    private var bytes: ArraySlice<UInt8>
    private let pieceSize: Int

    init(_ bytes: ArraySlice<UInt8>, pieceSize: Int) {
        self.bytes = bytes
        self.pieceSize = pieceSize
    }

    func receive() throws(AgeError) -> SecureBytes {
        let piece = bytes.prefix(pieceSize)
        bytes = bytes.dropFirst(pieceSize)
        return SecureBytes(piece)
    }

    func send(_ bytes: SecureBytes) throws(AgeError) {}
    func finish(cleanly: Bool) {}
    func personAnswered() {}
}

/// Starts a ``PluginBytes`` "plugin" that answers with fixed bytes.
struct PluginBytesLauncher: PluginLauncher {
    let bytes: [UInt8]

    func start(plugin name: String, stateMachine: String) throws(AgeError) -> any PluginChannel {
        PluginBytes(bytes[...], pieceSize: Int(bytes.first ?? 1) % 61 + 1)
    }
}
