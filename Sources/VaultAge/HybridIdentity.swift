internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes

/// An age post-quantum hybrid identity (ML-KEM-768 + X25519), written as `AGE-SECRET-KEY-PQ-1...`.
///
/// The encoding holds the 32-byte X-Wing seed; the ML-KEM-768 and X25519 keys are expanded from it
/// (SHAKE256, as draft-connolly-cfrg-xwing-kem and filippo.io/hpke-pq do), so age 1.3 and vault
/// derive the same recipient from the same line.
public struct HybridIdentity: AgeIdentity {
    static let hrp = "age-secret-key-pq-"
    static let seedSize = 32

    let privateKey: XWingMLKEM768X25519.PrivateKey

    init(privateKey: XWingMLKEM768X25519.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Generates a new identity from the system's secure random source.
    public static func generate() throws(AgeError) -> HybridIdentity {
        do {
            return HybridIdentity(privateKey: try XWingMLKEM768X25519.PrivateKey.generate())
        } catch {
            throw .invalidKey("could not generate an ML-KEM-768 + X25519 key")
        }
    }

    /// Parses `AGE-SECRET-KEY-PQ-1...` (Bech32, uppercase as age writes it, or all lowercase).
    public init(_ encoded: String) throws(AgeError) {
        let seed = try Bech32.decodeKey(
            encoded, hrp: HybridIdentity.hrp, malformed: "malformed post-quantum secret key",
            otherKind: "not an age post-quantum secret key (expected AGE-SECRET-KEY-PQ-1...)")
        guard seed.count == HybridIdentity.seedSize,
            let key = seed.withUnsafeBytes({
                try? XWingMLKEM768X25519.PrivateKey(seedRepresentation: $0, publicKey: nil)
            })
        else {
            throw .invalidKey("malformed post-quantum secret key: wrong length")
        }
        self.privateKey = key
    }

    /// The identity as age writes it: `AGE-SECRET-KEY-PQ-1...` in uppercase.
    public var encoded: String {
        var seed = privateKey.seedRepresentation
        defer { wipe(&seed) }
        return Bech32.encode(hrp: HybridIdentity.hrp, data: SecureBytes(seed)).uppercased()
    }

    /// The matching recipient (public key).
    public var recipient: HybridRecipient {
        HybridRecipient(validatedKey: privateKey.publicKey)
    }

    /// For people: the identity of its (shortened) public key. Never secret.
    public var description: String { "age post-quantum identity of \(recipient.shortened)" }

    public var stanzaTypes: [StanzaType] { [.mlkem768x25519] }

    public func matchingRecipient() -> any AgeRecipient { recipient }

    /// Unwraps the file key from the first `mlkem768x25519` stanza addressed to this identity.
    ///
    /// Other stanza types are ignored (the type is matched exactly: `MLKEM768X25519` is another
    /// type). A stanza of this type with the wrong argument count, an encapsulated key that is not
    /// the canonical base64 of 1,120 bytes, a body that is not 32 bytes (checked before any
    /// decryption, against partitioning oracles), or an X25519 share giving an all-zero shared
    /// secret (X-Wing decapsulation refuses it) is a header error.
    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        for stanza in stanzas where stanza.type == HybridRecipient.stanzaType {
            guard stanza.arguments.count == 2 else {
                throw .header("mlkem768x25519 stanza must have exactly one argument after its type")
            }
            guard let enc = Base64.decodeUnpadded(stanza.arguments[1]),
                enc.count == HybridRecipient.encapsulatedKeySize
            else {
                throw .header("mlkem768x25519 stanza share is not the canonical base64 of 1120 bytes")
            }
            guard stanza.body.count == KeyWrap.bodySize else {
                throw .header("mlkem768x25519 stanza body is not a 16-byte wrapped file key")
            }
            // ML-KEM decapsulation never fails (implicit rejection), so the only failure here is the
            // X25519 half: a low-order share whose shared secret would be all zeros.
            var recipient: HPKE.Recipient
            do {
                recipient = try HPKE.Recipient(
                    privateKey: privateKey, ciphersuite: HybridRecipient.ciphersuite, info: HybridRecipient.info,
                    encapsulatedKey: Data(enc))
            } catch {
                throw .header("mlkem768x25519 stanza share is a low-order point (all-zero shared secret)")
            }
            // A stanza for another key fails to authenticate: the normal answer, try the next one.
            guard var opened = try? recipient.open(stanza.body) else { continue }
            defer { wipe(&opened) }
            return FileKey(SymmetricKey(data: opened))
        }
        return nil
    }
}
