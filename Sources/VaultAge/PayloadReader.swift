internal import Crypto
internal import FoundationEssentials
public import VaultSecureBytes

/// Decrypts an age file one STREAM chunk at a time, for a caller that reads the file in pieces.
///
/// ``Age/open(_:identities:)`` takes the whole file and returns the whole plaintext: for a 2 MB
/// vault that is 4 MB of fresh memory, and on Linux every new 4 KiB page is a page fault. A
/// reader needs the first bytes of the file (the header and the payload nonce), then asks for one
/// sealed chunk after another (``nextChunk``) and keeps one chunk of plaintext at a time.
///
/// The checks are those of `Age.open`, in the same order: header syntax, the identities, the
/// header MAC, then every chunk, including the final-chunk flag, which is decided from the file
/// size exactly as `Age.open` decides it from the length of the bytes it is given. A chunk's
/// plaintext is handed out only once that chunk authenticates; a caller that needs the whole
/// payload to be intact must read every chunk before it acts on what it saw.
public struct AgePayloadReader {
    /// The header and file key, to reuse for writing (``Age/seal(_:envelope:)``) or to open the
    /// same file again without unwrapping the file key (``init(prefix:fileSize:envelope:)``).
    public let envelope: AgeEnvelope
    private let fileSize: Int
    private let payloadKey: SymmetricKey
    private var offset: Int
    private var counter: UInt64 = 0
    private var finished = false
    private var opener = Stream.ChunkOpener()

    /// How many bytes of a file's start the initialisers want: enough for a header with dozens of
    /// recipients and the nonce. A file whose header is longer is read whole with `Age.open`.
    public static let prefixSize = 16 * 1024

    /// Opens the header at the start of a file of `fileSize` bytes, given its first bytes.
    ///
    /// Returns nil when the file cannot be read in pieces: it is ASCII-armored, or `prefix` is
    /// shorter than the file and ends inside the header or the nonce. Read it whole and use
    /// `Age.open` then. Throws what `Age.open` throws for the header and the identities.
    public init?(prefix: [UInt8], fileSize: Int, identities: [any AgeIdentity]) throws(AgeError) {
        guard let header = try Self.header(prefix: prefix, fileSize: fileSize) else { return nil }
        let fileKey = try Age.unwrapVerifiedFileKey(header, identities: identities)
        let envelope = AgeEnvelope(
            header: Array(prefix[..<header.length]), fileKey: fileKey, types: header.stanzas.map(\.kind))
        try self.init(prefix: prefix, fileSize: fileSize, envelope: envelope)
    }

    /// Opens a file whose header is exactly `envelope`'s (a file this process already opened),
    /// without unwrapping the file key again: no scrypt for a passphrase file.
    ///
    /// Returns nil if the file does not start with that header, or as the other initialiser does.
    public init?(prefix: [UInt8], fileSize: Int, envelope: AgeEnvelope) throws(AgeError) {
        let payloadStart = envelope.header.count + Stream.nonceSize
        guard prefix.count >= payloadStart || prefix.count == fileSize, prefix.starts(with: envelope.header) else {
            return nil
        }
        guard fileSize >= payloadStart else { throw .header("file ends before the payload nonce") }
        guard fileSize > payloadStart else { throw .payload("payload has no chunks") }
        self.envelope = envelope
        self.fileSize = fileSize
        payloadKey = Stream.payloadKey(fileKey: envelope.fileKey, nonce: prefix[envelope.header.count..<payloadStart])
        offset = payloadStart
    }

    /// The byte range of the file to read and pass to ``open(_:reading:)`` next, or nil once the
    /// final chunk has been opened.
    public var nextChunk: Range<Int>? {
        finished ? nil : offset..<(offset + Stream.sealedLength(remaining: fileSize - offset).length)
    }

    /// Authenticates and decrypts the chunk at ``nextChunk`` and lets `body` read its plaintext in
    /// place, zeroed when `body` returns: no copy of a chunk is made on the way (a `get` reads
    /// every chunk of the file). A chunk that does not open is thrown before `body` runs.
    public mutating func open<T>(
        _ sealed: UnsafeRawBufferPointer, reading body: (UnsafeRawBufferPointer) -> T
    ) throws(AgeError) -> T {
        var plaintext = try openChunk(sealed)
        defer { wipe(&plaintext) }
        return plaintext.withUnsafeBytes(body)
    }

    /// The chunk's plaintext as swift-crypto returns it; ``open(_:reading:)`` wipes it.
    private mutating func openChunk(_ sealed: UnsafeRawBufferPointer) throws(AgeError) -> Data {
        guard !finished else { throw .payload("data after the final payload chunk") }
        let (length, last) = Stream.sealedLength(remaining: fileSize - offset)
        guard sealed.count == length else { throw .payload("payload chunk \(counter) is truncated") }
        let plaintext = try opener.open(sealed, counter: counter, last: last, key: payloadKey)
        offset += length
        counter += 1
        finished = last
        return plaintext
    }

    /// The header at the start of `prefix`, or nil when the caller should read the whole file.
    private static func header(prefix: [UInt8], fileSize: Int) throws(AgeError) -> Header? {
        let whole = prefix.count == fileSize
        if Armor.looksArmored(prefix) { return nil }
        do {
            let header = try Header.parse(prefix)
            guard whole || prefix.count >= header.length + Stream.nonceSize else { return nil }
            return header
        } catch {
            // A header cut off by the end of the prefix is not an error yet: the file goes on.
            if whole { throw error }
            return nil
        }
    }
}

extension AgePayloadReader {
    /// Decrypts the rest of a file held in memory, chunk by chunk, into one plaintext.
    ///
    /// With ``init(prefix:fileSize:envelope:)`` this opens a file again without its identities.
    public mutating func decryptRemaining(of file: [UInt8]) throws(AgeError) -> SecureBytes {
        var plaintext = SecureBytes()
        plaintext.reserveCapacity(Swift.max(0, fileSize - offset))
        // A failure drops `plaintext`, which zeroes itself.
        while let range = nextChunk {
            guard range.upperBound <= file.count else { throw .payload("the file is shorter than its size") }
            try withBytes(of: file[range]) { (sealed) throws(AgeError) in
                try self.open(sealed) { plaintext.append(contentsOf: $0) }
            }
        }
        return plaintext
    }
}
