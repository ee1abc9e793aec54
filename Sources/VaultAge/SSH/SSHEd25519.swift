internal import Crypto
internal import VaultSecureBytes

/// age's `ssh-ed25519` recipient type (agessh): X25519 with the Ed25519 key's Montgomery form,
/// and the shared secret multiplied by a tweak derived from the SSH public key, so the stanza is
/// bound to that key. The stanza shows a 4-byte tag of the key: not anonymous.
enum SSHEd25519 {
    static let stanzaType = SSHPublicKey.ed25519
    static let label = Array("age-encryption.org/v1/ssh-ed25519".utf8)

    /// X25519(HKDF-SHA-256(ikm: empty, salt: SSH public key blob, info: label)): the tweak scalar.
    static func tweak(for key: SSHPublicKey) -> Curve25519.KeyAgreement.PrivateKey {
        let bytes = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: [UInt8]()), salt: key.blob, info: label, outputByteCount: 32)
        guard let tweak = bytes.withUnsafeBytes({ try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) })
        else { preconditionFailure("a 32-byte X25519 scalar was rejected") }
        return tweak
    }

    /// The wrap key from the two X25519 results: HKDF over the tweaked secret, salted with the
    /// ephemeral share and the recipient's X25519 public key.
    static func wrapKey(
        secret: SharedSecret, tweak: Curve25519.KeyAgreement.PrivateKey, share: [UInt8], recipient: [UInt8]
    ) -> SymmetricKey? {
        let point = secret.withUnsafeBytes { Array($0) }
        guard let publicPoint = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: point),
            let tweaked = try? tweak.sharedSecretFromKeyAgreement(with: publicPoint)
        else { return nil }
        return tweaked.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: share + recipient, sharedInfo: label, outputByteCount: 32)
    }

    /// The Montgomery u-coordinate of an Ed25519 public key (RFC 7748 section 4.1: u = (1 + y) /
    /// (1 - y)); nil when the 32 bytes are not a point on the curve, or a point of small order.
    static func montgomery(fromEdwards encoded: [UInt8]) -> [UInt8]? {
        guard encoded.count == 32 else { return nil }
        let field = Field.modulus
        var yBytes = encoded
        let sign = yBytes[31] >> 7
        yBytes[31] &= 0x7F
        let y = field.reduced(Modulus.number(bigEndian: yBytes.reversed()))
        let one = field.padded([1])
        // On the curve: x^2 = (y^2 - 1) / (d y^2 + 1) must have a root (Euler's criterion).
        let ySquared = field.multiply(y, y)
        let numerator = field.subtract(ySquared, one)
        let denominator = field.add(field.multiply(Field.d, ySquared), one)
        let xSquared = field.multiply(numerator, field.power(denominator, Field.pMinus2))
        let euler = field.power(xSquared, Field.halfPMinus1)
        let isZero = xSquared.allSatisfy { $0 == 0 }
        guard isZero ? sign == 0 : euler == one else { return nil }
        let oneMinusY = field.subtract(one, y)
        guard !oneMinusY.allSatisfy({ $0 == 0 }) else { return nil }
        let u = field.multiply(field.add(one, y), field.power(oneMinusY, Field.pMinus2))
        let bytes = Array(field.bigEndian(u).reversed())
        return X25519Agreement.isUsable(bytes) ? bytes : nil
    }

    /// GF(2^255 - 19), for the conversion only (public values).
    private enum Field {
        static let p: [UInt8] = [0x7F] + [UInt8](repeating: 0xFF, count: 30) + [0xED]
        static let modulus = Modulus(bigEndian: p)!
        static let pMinus2: [UInt8] = [0x7F] + [UInt8](repeating: 0xFF, count: 30) + [0xEB]
        /// (p - 1) / 2 = 2^254 - 10.
        static let halfPMinus1: [UInt8] = [0x3F] + [UInt8](repeating: 0xFF, count: 30) + [0xF6]
        /// d = -121665 / 121666.
        static let d: Modulus.Number = {
            let minus = modulus.subtract(modulus.padded([0]), modulus.padded([121_665]))
            return modulus.multiply(minus, modulus.power(modulus.padded([121_666]), pMinus2))
        }()
    }
}

/// An `ssh-ed25519` public key as an age recipient.
public struct SSHEd25519Recipient: AgeRecipient {
    let key: SSHPublicKey
    /// The key's X25519 (Montgomery) form.
    let montgomery: [UInt8]
    private let tweak: Curve25519.KeyAgreement.PrivateKey

    init(key: SSHPublicKey, montgomery: [UInt8]) {
        self.key = key
        self.montgomery = montgomery
        self.tweak = SSHEd25519.tweak(for: key)
    }

    /// The recipient for an `ssh-ed25519` public key; `.invalidKey` unless it is a valid point.
    init(key: SSHPublicKey) throws(AgeError) {
        var reader = SSHReader(key.blob)
        guard reader.text() == SSHEd25519.stanzaType, let point = reader.string(), point.count == 32, reader.isAtEnd
        else { throw .invalidKey("malformed ssh-ed25519 public key") }
        guard let montgomery = SSHEd25519.montgomery(fromEdwards: point) else {
            throw .invalidKey("ssh-ed25519 public key is not a valid curve point")
        }
        self.init(key: key, montgomery: montgomery)
    }

    public var description: String { key.description }
    public var stanzaTypes: [StanzaType] { [StanzaType(SSHEd25519.stanzaType)] }
    public var recipientLine: String? { key.line }

    public func recognizes(_ stanza: Stanza) -> Bool {
        stanza.type == SSHEd25519.stanzaType && stanza.arguments.count == 3 && stanza.arguments[1] == key.tag
    }

    public func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza] {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let share = Array(ephemeral.publicKey.rawRepresentation)
        guard let theirs = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: montgomery),
            let secret = try? ephemeral.sharedSecretFromKeyAgreement(with: theirs),
            let wrapKey = SSHEd25519.wrapKey(secret: secret, tweak: tweak, share: share, recipient: montgomery)
        else {
            // The point was checked for validity and small order when this recipient was made.
            preconditionFailure("X25519 with a validated ssh-ed25519 recipient failed")
        }
        return [
            Stanza(
                type: SSHEd25519.stanzaType, arguments: [key.tag, Base64.encodeUnpadded(share)],
                body: KeyWrap.seal(fileKey.key, with: wrapKey))
        ]
    }
}

/// An `ssh-ed25519` private key as an age identity.
public struct SSHEd25519Identity: AgeIdentity {
    let key: SSHPublicKey
    private let scalar: Curve25519.KeyAgreement.PrivateKey
    private let ownPublic: [UInt8]
    private let tweak: Curve25519.KeyAgreement.PrivateKey

    /// From the Ed25519 seed: the X25519 scalar is the first half of SHA-512(seed), as Ed25519
    /// itself derives its signing scalar.
    init(key: SSHPublicKey, seed: SecureBytes) throws(AgeError) {
        let digest = seed.withUnsafeBytes { SHA512.hash(data: $0) }
        guard
            let scalar = digest.withUnsafeBytes({
                try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0.prefix(32))
            })
        else { throw .invalidKey("malformed ssh-ed25519 private key") }
        self.key = key
        self.scalar = scalar
        self.ownPublic = Array(scalar.publicKey.rawRepresentation)
        self.tweak = SSHEd25519.tweak(for: key)
    }

    public var description: String { key.description }
    public var stanzaTypes: [StanzaType] { [StanzaType(SSHEd25519.stanzaType)] }

    public func matchingRecipient() -> any AgeRecipient { SSHEd25519Recipient(key: key, montgomery: ownPublic) }

    /// Stanzas with another key's tag are skipped unread, as age does; one with this key's tag
    /// must be well formed. One that does not open is left for the next (a 4-byte tag can collide).
    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        let tag = key.tag
        for stanza in stanzas where stanza.type == SSHEd25519.stanzaType {
            guard stanza.arguments.count == 3 else {
                throw .header("ssh-ed25519 stanza must have exactly two arguments after its type")
            }
            guard let share = Base64.decodeUnpadded(stanza.arguments[2]), share.count == 32 else {
                throw .header("ssh-ed25519 stanza share is not the canonical base64 of 32 bytes")
            }
            guard stanza.arguments[1] == tag else { continue }
            guard stanza.body.count == KeyWrap.bodySize else {
                throw .header("ssh-ed25519 stanza body is not a 16-byte wrapped file key")
            }
            guard let secret = X25519Agreement.secret(scalar, with: share) else {
                throw .header("ssh-ed25519 stanza share is a low-order point (all-zero shared secret)")
            }
            guard let wrapKey = SSHEd25519.wrapKey(secret: secret, tweak: tweak, share: share, recipient: ownPublic)
            else { continue }
            if let fileKey = KeyWrap.open(stanza.body, with: wrapKey) { return FileKey(fileKey) }
        }
        return nil
    }
}
