internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes
internal import _CryptoExtras

/// age's `ssh-rsa` recipient type (agessh): the file key encrypted with RSA-OAEP, SHA-256 and
/// MGF1-SHA-256, under the label `age-encryption.org/v1/ssh-rsa`.
///
/// swift-crypto's RSA-OAEP takes no label, so the padding is done here (RFC 8017 section 7.1)
/// around the raw RSA operations: the public one (m^e mod n, with ``Modulus``: public values
/// only) and the private one through swift-crypto's raw RSA signing primitive (BoringSSL's
/// `RSA_sign_raw` without padding, which is RSADP), so no private exponent meets code from here.
enum SSHRSA {
    static let stanzaType = SSHPublicKey.rsa
    static let label = Array("age-encryption.org/v1/ssh-rsa".utf8)
    static let minimumBits = 2048
    /// The largest key accepted: far above any real key, and refused before any arithmetic
    /// (setting up the modulus takes time quadratic in its size: minutes for a 512 Kibit one).
    static let maximumBits = 16_384
    /// The largest public exponent accepted, in bits, as Go's ssh package (and so age) has it.
    static let maximumExponentBits = 24
    private static let hashSize = 32

    /// EME-OAEP encoding of `message` for a modulus of `size` bytes.
    static func pad(_ message: [UInt8], size: Int) -> [UInt8] {
        let labelHash = Array(SHA256.hash(data: label))
        var dataBlock = labelHash + [UInt8](repeating: 0, count: size - message.count - 2 * hashSize - 2)
        dataBlock += [0x01] + message
        var generator = SystemRandomNumberGenerator()
        var seed = (0..<hashSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        defer { wipe(&seed) }
        let maskedBlock = xor(dataBlock, mgf1(seed, count: dataBlock.count))
        let maskedSeed = xor(seed, mgf1(maskedBlock, count: hashSize))
        wipe(&dataBlock)
        return [0] + maskedSeed + maskedBlock
    }

    /// EME-OAEP decoding; nil on any mismatch. Every check is folded into one flag before it is
    /// looked at, so the time taken says nothing about which check failed.
    static func unpad(_ encoded: [UInt8]) -> SecureBytes? {
        guard encoded.count >= 2 * hashSize + 2 else { return nil }
        let maskedSeed = Array(encoded[1...hashSize])
        let maskedBlock = Array(encoded[(hashSize + 1)...])
        var seed = xor(maskedSeed, mgf1(maskedBlock, count: hashSize))
        var dataBlock = xor(maskedBlock, mgf1(seed, count: maskedBlock.count))
        defer {
            wipe(&seed)
            wipe(&dataBlock)
        }
        let labelHash = Array(SHA256.hash(data: label))
        var bad = UInt8(encoded[0])
        for index in 0..<hashSize { bad |= dataBlock[index] ^ labelHash[index] }
        // Find the 0x01 after the zero padding without branching on secret bytes.
        var found: UInt8 = 0
        var start = 0
        var invalidPadding: UInt8 = 0
        for index in hashSize..<dataBlock.count {
            let byte = dataBlock[index]
            let isOne: UInt8 = byte == 1 ? 1 : 0
            let isZero: UInt8 = byte == 0 ? 1 : 0
            let notFound: UInt8 = found ^ 1
            if notFound & isOne == 1 { start = index + 1 }
            invalidPadding |= notFound & (isOne | isZero) ^ notFound
            found |= isOne
        }
        bad |= invalidPadding | (found ^ 1)
        guard bad == 0 else { return nil }
        return SecureBytes(dataBlock[start...])
    }

    private static func mgf1(_ seed: [UInt8], count: Int) -> [UInt8] {
        var output: [UInt8] = []
        var counter: UInt32 = 0
        while output.count < count {
            let suffix = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (24 - 8 * $0)) }
            output += SHA256.hash(data: seed + suffix)
            counter += 1
        }
        return Array(output.prefix(count))
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}

/// An `ssh-rsa` public key as an age recipient.
public struct SSHRSARecipient: AgeRecipient {
    let key: SSHPublicKey
    let modulus: Modulus
    let exponent: [UInt8]

    /// The recipient for an `ssh-rsa` public key of at least 2048 bits (age's minimum).
    init(key: SSHPublicKey) throws(AgeError) {
        var reader = SSHReader(key.blob)
        guard reader.text() == SSHRSA.stanzaType, let exponent = reader.positiveInteger(),
            let modulus = reader.positiveInteger(), reader.isAtEnd
        else { throw .invalidKey("malformed ssh-rsa public key") }
        try self.init(key: key, modulus: modulus, exponent: exponent)
    }

    /// `modulus` and `exponent` are big-endian magnitudes without leading zeros (``SSHReader/positiveInteger()``).
    init(key: SSHPublicKey, modulus: [UInt8], exponent: [UInt8]) throws(AgeError) {
        let bits = modulus.count * 8 - (modulus.first.map { $0.leadingZeroBitCount } ?? 8)
        guard bits <= SSHRSA.maximumBits else {
            throw .invalidKey("ssh-rsa key of \(bits) bits is too large (vault accepts at most \(SSHRSA.maximumBits))")
        }
        guard bits >= SSHRSA.minimumBits else {
            throw .invalidKey("ssh-rsa key of \(bits) bits is too small (age needs at least \(SSHRSA.minimumBits))")
        }
        // e = 1 would "encrypt" the file key to itself, and an even e is no RSA key: as Go's ssh
        // package, which age uses, only an odd e from 3 to 2^24 - 1 is a public key.
        let exponentBits = exponent.count * 8 - (exponent.first.map { $0.leadingZeroBitCount } ?? 8)
        guard exponentBits <= SSHRSA.maximumExponentBits, let last = exponent.last, last & 1 == 1,
            exponentBits > 1
        else {
            throw .invalidKey("ssh-rsa public exponent is not an odd number from 3 to 2^24 - 1: not a usable RSA key")
        }
        guard let parsed = Modulus(bigEndian: modulus) else { throw .invalidKey("malformed ssh-rsa public key") }
        self.key = key
        self.modulus = parsed
        self.exponent = exponent
    }

    public var description: String { key.description }
    public var stanzaTypes: [StanzaType] { [StanzaType(SSHRSA.stanzaType)] }
    public var recipientLine: String? { key.line }

    public func recognizes(_ stanza: Stanza) -> Bool {
        stanza.type == SSHRSA.stanzaType && stanza.arguments.count == 2 && stanza.arguments[1] == key.tag
    }

    public func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza] {
        var message = fileKey.key.withUnsafeBytes { Array($0) }
        defer { wipe(&message) }
        let encoded = SSHRSA.pad(message, size: modulus.byteCount)
        return [Stanza(type: SSHRSA.stanzaType, arguments: [key.tag], body: modulus.power(encoded, exponent))]
    }
}

/// An `ssh-rsa` private key as an age identity.
public struct SSHRSAIdentity: AgeIdentity {
    let key: SSHPublicKey
    private let recipientKey: SSHRSARecipient
    private let privateKey: _RSA.BlindSigning.PrivateKey<SHA384>

    /// From the numbers an OpenSSH key file holds (big-endian magnitudes).
    init(key: SSHPublicKey, n: [UInt8], e: [UInt8], d: SecureBytes, p: SecureBytes, q: SecureBytes) throws(AgeError) {
        recipientKey = try SSHRSARecipient(key: key, modulus: n, exponent: e)
        do {
            privateKey = try d.withUnsafeBytes { d in
                try p.withUnsafeBytes { p in
                    try q.withUnsafeBytes { q in
                        try _RSA.BlindSigning.PrivateKey<SHA384>(
                            n: n, e: e, d: d, p: p, q: q, parameters: .RSABSSA_SHA384_PSS_Deterministic)
                    }
                }
            }
        } catch {
            throw .invalidKey("malformed ssh-rsa private key: its numbers do not form an RSA key")
        }
        self.key = key
    }

    public var description: String { key.description }
    public var stanzaTypes: [StanzaType] { [StanzaType(SSHRSA.stanzaType)] }

    public func matchingRecipient() -> any AgeRecipient { recipientKey }

    /// Stanzas with another key's tag are skipped; one with this key's tag that does not decrypt
    /// is left for the next (a 4-byte tag can collide), and the whole answer is then "no match".
    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        let tag = key.tag
        for stanza in stanzas where stanza.type == SSHRSA.stanzaType {
            guard stanza.arguments.count == 2 else {
                throw .header("ssh-rsa stanza must have exactly one argument after its type")
            }
            guard stanza.arguments[1] == tag else { continue }
            guard stanza.body.count == recipientKey.modulus.byteCount, recipientKey.modulus.contains(stanza.body)
            else { throw .header("ssh-rsa stanza body is not a ciphertext for this key") }
            guard let raw = try? privateKey.blindSignature(for: stanza.body) else { continue }
            var encoded = Array(raw.rawRepresentation)
            defer { wipe(&encoded) }
            guard let fileKey = SSHRSA.unpad(encoded), fileKey.count == KeyWrap.fileKeySize else { continue }
            return fileKey.withUnsafeBytes { FileKey(SymmetricKey(data: $0)) }
        }
        return nil
    }
}
