internal import Crypto
public import VaultSecureBytes

/// An opened header: what is needed to write a new payload under the same header without unwrapping
/// the file key again (a fresh 16-byte payload nonce gives each write its own payload key).
public struct AgeEnvelope: Sendable {
    /// The exact header bytes, MAC line included (binary, also when the opened file was armored).
    let header: [UInt8]
    /// Held as a `SymmetricKey`, whose storage swift-crypto zeroes when the last copy is released.
    let fileKey: SymmetricKey
    let types: [StanzaType]

    /// The stanza types in header order, e.g. `[.x25519, .x25519]` or `[.scrypt]`.
    public var stanzaTypes: [StanzaType] { types }

    /// The exact header bytes every file sealed with this envelope starts with.
    public var headerBytes: [UInt8] { header }
}

/// The age v1 file format (age-encryption.org/v1).
public enum Age {
    /// Encrypts to the recipients with a fresh random file key; binary (not armored) output.
    public static func encrypt(
        _ plaintext: some Collection<UInt8>, to recipients: [any AgeRecipient]
    ) throws(AgeError) -> [UInt8] {
        try encryptReturningEnvelope(plaintext, to: recipients).file
    }

    /// Encrypts and returns the envelope too (so a caller can reuse the header for later writes).
    public static func encryptReturningEnvelope(
        _ plaintext: some Collection<UInt8>, to recipients: [any AgeRecipient]
    ) throws(AgeError) -> (file: [UInt8], envelope: AgeEnvelope) {
        guard !recipients.isEmpty else { throw .invalidKey("no recipients to encrypt to") }
        guard recipients.count <= Header.maximumStanzas else {
            throw .invalidKey("\(recipients.count) recipients; a file may have at most \(Header.maximumStanzas)")
        }
        if let alone = recipients.first(where: \.mustBeAlone), recipients.count != 1 {
            throw .invalidKey("\(alone.description) must be the only recipient of a file")
        }
        try checkPostQuantumNotMixed(recipients)
        let fileKey = SymmetricKey(size: SymmetricKeySize(bitCount: KeyWrap.fileKeySize * 8))
        // The keys of one plugin are wrapped together, in one run of the plugin.
        let stanzas = try KeyGroups.wrap(FileKey(fileKey), for: recipients)
        guard stanzas.count <= Header.maximumStanzas else {
            throw .invalidKey("\(stanzas.count) stanzas; a file may have at most \(Header.maximumStanzas)")
        }
        let envelope = AgeEnvelope(
            header: Header.encode(stanzas, fileKey: fileKey), fileKey: fileKey, types: stanzas.map(\.kind))
        return (seal(plaintext, envelope: envelope), envelope)
    }

    /// Decrypts a whole file (binary or ASCII-armored). Never returns plaintext that failed authentication.
    public static func decrypt(_ file: [UInt8], identities: [any AgeIdentity]) throws(AgeError) -> SecureBytes {
        try open(file, identities: identities).plaintext
    }

    /// Decrypts and returns the envelope for re-sealing.
    ///
    /// Checks, in order: armor, header syntax, the scrypt-alone rule, each identity against the
    /// stanzas (malformed stanzas of a known type are header errors), the header MAC, the payload.
    public static func open(
        _ file: [UInt8], identities: [any AgeIdentity]
    ) throws(AgeError) -> (plaintext: SecureBytes, envelope: AgeEnvelope) {
        let binary = Armor.looksArmored(file) ? try Armor.decode(file) : file
        let header = try Header.parse(binary)
        let fileKey = try unwrapVerifiedFileKey(header, identities: identities)
        let payload = binary[header.length...]
        guard payload.count >= Stream.nonceSize else { throw .header("file ends before the payload nonce") }
        let key = Stream.payloadKey(fileKey: fileKey, nonce: payload.prefix(Stream.nonceSize))
        let plaintext = try Stream.decrypt(payload.dropFirst(Stream.nonceSize), key: key)
        let envelope = AgeEnvelope(
            header: Array(binary[..<header.length]), fileKey: fileKey, types: header.stanzas.map(\.kind))
        return (plaintext, envelope)
    }

    /// Writes a new age file: the envelope's exact header bytes, then a fresh nonce and STREAM payload.
    public static func seal(_ plaintext: some Collection<UInt8>, envelope: AgeEnvelope) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<Stream.nonceSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let key = Stream.payloadKey(fileKey: envelope.fileKey, nonce: nonce)
        // Arrays and SecureBytes are read in place; anything else is copied into SecureBytes first.
        let payload =
            plaintext.withContiguousStorageIfAvailable { Stream.encrypt(UnsafeRawBufferPointer($0), key: key) }
            ?? SecureBytes(plaintext).withUnsafeBytes { Stream.encrypt($0, key: key) }
        return envelope.header + nonce + payload
    }

    /// The header of a file (through the MAC line, in binary form), read without decrypting.
    ///
    /// Lets a caller recognise a header it wrote before, to tell a damaged header from a wrong key.
    public static func header(of file: [UInt8]) throws(AgeError) -> [UInt8] {
        let binary = Armor.looksArmored(file) ? try Armor.decode(file) : file
        return Array(binary[..<(try Header.parse(binary).length)])
    }

    /// Reads just the header's stanza types without decrypting (for diagnostics), .header on malformed.
    public static func stanzaTypes(of file: [UInt8]) throws(AgeError) -> [StanzaType] {
        let binary = Armor.looksArmored(file) ? try Armor.decode(file) : file
        return try Header.parse(binary).stanzas.map(\.kind)
    }

    /// The header's stanzas, read without decrypting (header trust names the SSH keys in them).
    public static func stanzas(of file: [UInt8]) throws(AgeError) -> [Stanza] {
        let binary = Armor.looksArmored(file) ? try Armor.decode(file) : file
        return try Header.parse(binary).stanzas
    }

    /// The file key of `header`, unwrapped with `identities` and checked against the header's MAC.
    static func unwrapVerifiedFileKey(_ header: Header, identities: [any AgeIdentity]) throws(AgeError) -> SymmetricKey
    {
        let stanzas = header.stanzas
        if stanzas.contains(where: { $0.type == Scrypt.stanzaType }) && stanzas.count != 1 {
            throw .header("an scrypt stanza must be the only stanza in the header")
        }
        // The keys of one plugin are tried together, in one run of the plugin.
        guard let fileKey = try KeyGroups.unwrap(stanzas, with: identities) else {
            throw AgeError(kind: .noMatch, message: "no identity matched any of the file's recipients")
        }
        guard header.verifyMAC(fileKey: fileKey.key) else {
            if let source = fileKey.unverifiedSource {
                throw AgeError(
                    kind: .pluginKeyMismatch,
                    message:
                        "the file key \(source) answered does not open the file (the header's MAC does not match it)")
            }
            throw AgeError(kind: .hmac, message: "header MAC mismatch")
        }
        return fileKey.key
    }

    /// Refuses post-quantum recipients beside classic ones, as age 1.3 does: a classic stanza in the
    /// same header would open the file to whoever breaks X25519, undoing the hybrid's protection.
    ///
    /// Reading such a file (age 1.3 does, testkit `hybrid_and_x25519`) stays allowed.
    public static func checkPostQuantumNotMixed(_ recipients: [any AgeRecipient]) throws(AgeError) {
        if recipients.contains(where: \.isPostQuantum), !recipients.allSatisfy(\.isPostQuantum) {
            throw .invalidKey(
                "post-quantum and classic recipients cannot share a file: a classic stanza would undo the post-quantum protection"
            )
        }
    }
}
