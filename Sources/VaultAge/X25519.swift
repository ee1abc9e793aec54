internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes

/// An age X25519 identity (private key), written as `AGE-SECRET-KEY-1...`.
public struct X25519Identity: AgeIdentity {
    static let hrp = "age-secret-key-"

    let privateKey: Curve25519.KeyAgreement.PrivateKey

    init(privateKey: Curve25519.KeyAgreement.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Generates a new identity from the system's secure random source.
    public static func generate() -> X25519Identity {
        X25519Identity(privateKey: Curve25519.KeyAgreement.PrivateKey())
    }

    /// Parses `AGE-SECRET-KEY-1...` (Bech32, uppercase as age writes it, or all lowercase).
    public init(_ encoded: String) throws(AgeError) {
        let data = try Bech32.decodeKey(
            encoded, hrp: X25519Identity.hrp, malformed: "malformed age secret key",
            otherKind: "not an age X25519 secret key (expected AGE-SECRET-KEY-1...)")
        guard data.count == 32,
            let key = data.withUnsafeBytes({ try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) })
        else {
            throw .invalidKey("malformed age secret key: wrong length")
        }
        self.privateKey = key
    }

    /// The identity as age writes it: `AGE-SECRET-KEY-1...` in uppercase.
    public var encoded: String {
        Bech32.encode(hrp: X25519Identity.hrp, data: SecureBytes(privateKey.rawRepresentation)).uppercased()
    }

    /// The matching recipient (public key).
    public var recipient: X25519Recipient {
        X25519Recipient(validatedKey: privateKey.publicKey)
    }

    public var description: String { "age identity of \(recipient.encoded)" }

    public var stanzaTypes: [StanzaType] { [.x25519] }

    public func matchingRecipient() -> any AgeRecipient { recipient }

    /// Unwraps the file key from the first X25519 stanza addressed to this identity.
    ///
    /// Other stanza types are ignored. X25519 stanzas with the wrong argument count, a share that is
    /// not the canonical base64 of 32 bytes, a body that is not 32 bytes, or a share giving an
    /// all-zero shared secret (low-order point) are header errors, checked before any decryption.
    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        let ownKey = Array(privateKey.publicKey.rawRepresentation)
        for stanza in stanzas where stanza.type == X25519Recipient.stanzaType {
            guard stanza.arguments.count == 2 else {
                throw .header("X25519 stanza must have exactly one argument after its type")
            }
            guard let share = Base64.decodeUnpadded(stanza.arguments[1]), share.count == 32 else {
                throw .header("X25519 stanza share is not the canonical base64 of 32 bytes")
            }
            guard stanza.body.count == KeyWrap.bodySize else {
                throw .header("X25519 stanza body is not a 16-byte wrapped file key")
            }
            guard let secret = X25519Agreement.secret(privateKey, with: share) else {
                throw .header("X25519 stanza share is a low-order point (all-zero shared secret)")
            }
            let wrapKey = X25519Recipient.wrapKey(secret: secret, share: share, recipient: ownKey)
            if let fileKey = KeyWrap.open(stanza.body, with: wrapKey) { return FileKey(fileKey) }
        }
        return nil
    }
}

/// An age X25519 recipient (public key), written as `age1...`.
public struct X25519Recipient: AgeRecipient, Hashable {
    static let hrp = "age"
    static let stanzaType = "X25519"
    static let info = Array("age-encryption.org/v1/X25519".utf8)

    let keyBytes: [UInt8]

    init(validatedKey: Curve25519.KeyAgreement.PublicKey) {
        self.keyBytes = Array(validatedKey.rawRepresentation)
    }

    /// Parses `age1...` (Bech32, lowercase as age writes it; all uppercase is accepted too).
    ///
    /// Low-order points are rejected: encrypting to one would give an all-zero shared secret.
    public init(_ encoded: String) throws(AgeError) {
        let data = try Bech32.decodeKey(
            encoded, hrp: X25519Recipient.hrp, malformed: "malformed age recipient",
            otherKind: "not an age X25519 recipient (expected age1...)"
        ).unprotectedArray
        guard data.count == 32 else { throw .invalidKey("malformed age recipient: wrong length") }
        guard X25519Agreement.isUsable(data) else { throw .invalidKey("age recipient is a low-order point") }
        self.keyBytes = data
    }

    /// The recipient as age writes it: `age1...` in lowercase.
    public var encoded: String {
        Bech32.encode(hrp: X25519Recipient.hrp, data: keyBytes)
    }

    public var description: String { "age public key \(encoded)" }

    public var recipientLine: String? { encoded }

    public var stanzaTypes: [StanzaType] { [.x25519] }

    /// Wraps the file key in a new X25519 stanza with a fresh ephemeral key.
    public func wrap(_ fileKey: FileKey) -> [Stanza] {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let share = Array(ephemeral.publicKey.rawRepresentation)
        guard let publicKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: keyBytes),
            let secret = try? ephemeral.sharedSecretFromKeyAgreement(with: publicKey)
        else {
            // The key was checked for length and low order when this recipient was made.
            preconditionFailure("X25519 with a validated recipient failed")
        }
        let wrapKey = X25519Recipient.wrapKey(secret: secret, share: share, recipient: keyBytes)
        return [
            Stanza(
                arguments: [X25519Recipient.stanzaType, Base64.encodeUnpadded(share)],
                body: KeyWrap.seal(fileKey.key, with: wrapKey))
        ]
    }

    /// HKDF-SHA-256(ikm: shared secret, salt: share || recipient, info: "age-encryption.org/v1/X25519").
    static func wrapKey(secret: SharedSecret, share: [UInt8], recipient: [UInt8]) -> SymmetricKey {
        secret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: share + recipient, sharedInfo: info, outputByteCount: 32)
    }
}
