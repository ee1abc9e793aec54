internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes

/// An age post-quantum hybrid recipient (ML-KEM-768 + X25519, i.e. X-Wing), written as `age1pq1...`.
///
/// The `mlkem768x25519` stanza of age 1.3 (C2SP age.md): the file key sealed with HPKE base mode,
/// KEM MLKEM768-X25519 (X-Wing, 0x647a), HKDF-SHA256, ChaCha20-Poly1305, info
/// `age-encryption.org/mlkem768x25519`, empty aad; the stanza's one argument is the 1,120-byte
/// encapsulated key and its body the 32-byte HPKE ciphertext.
public struct HybridRecipient: AgeRecipient, Hashable {
    static let hrp = "age1pq"
    static let stanzaType = "mlkem768x25519"
    static let info = Data("age-encryption.org/mlkem768x25519".utf8)
    /// An ML-KEM-768 encapsulation key (1,184 bytes) followed by an X25519 public key (32 bytes).
    static let publicKeySize = 1216
    /// An ML-KEM-768 ciphertext (1,088 bytes) followed by an X25519 ephemeral share (32 bytes).
    static let encapsulatedKeySize = 1120
    static let ciphersuite = HPKE.Ciphersuite(kem: .XWingMLKEM768X25519, kdf: .HKDF_SHA256, aead: .chaChaPoly)

    let keyBytes: [UInt8]

    init(validatedKey: XWingMLKEM768X25519.PublicKey) {
        self.keyBytes = Array(validatedKey.rawRepresentation)
    }

    /// Parses `age1pq1...` (Bech32, lowercase as age writes it; all uppercase is accepted too).
    public init(_ encoded: String) throws(AgeError) {
        let data = try Bech32.decodeKey(
            encoded, hrp: HybridRecipient.hrp, malformed: "malformed post-quantum recipient",
            otherKind: "not an age post-quantum recipient (expected age1pq1...)"
        ).unprotectedArray
        guard data.count == HybridRecipient.publicKeySize,
            (try? XWingMLKEM768X25519.PublicKey(rawRepresentation: data)) != nil
        else {
            throw .invalidKey("malformed post-quantum recipient: not an ML-KEM-768 + X25519 public key")
        }
        // The parser above takes any bytes of the right length; a key that encapsulation would
        // then refuse is refused here, when it is read, as FIPS 203 and X-Wing require.
        guard Self.isCanonicalEncapsulationKey(data.prefix(Self.encapsulationKeySize)) else {
            throw .invalidKey(
                "malformed post-quantum recipient: its ML-KEM-768 key has a coefficient not below q = 3329")
        }
        guard X25519Agreement.isUsable(Array(data.suffix(32))) else {
            throw .invalidKey("malformed post-quantum recipient: its X25519 key is a low-order point")
        }
        self.keyBytes = data
    }

    /// An ML-KEM-768 encapsulation key: 3 × 256 coefficients of 12 bits, then the 32-byte seed ρ.
    static let encapsulationKeySize = 1184
    static let mlkemModulus: UInt16 = 3329

    /// FIPS 203, section 7.2, the encapsulation key's modulus check: each 12-bit coefficient is
    /// below q (decoding then encoding gives the same bytes).
    static func isCanonicalEncapsulationKey(_ key: ArraySlice<UInt8>) -> Bool {
        let coefficients = Array(key.prefix(encapsulationKeySize - 32))
        return stride(from: 0, to: coefficients.count, by: 3).allSatisfy { index in
            let (b0, b1, b2) = (
                UInt16(coefficients[index]), UInt16(coefficients[index + 1]), UInt16(coefficients[index + 2])
            )
            return (b0 | (b1 & 0x0F) << 8) < mlkemModulus && (b1 >> 4 | b2 << 4) < mlkemModulus
        }
    }

    /// The recipient as age writes it: `age1pq1...` in lowercase (1,959 characters).
    public var encoded: String {
        Bech32.encode(hrp: HybridRecipient.hrp, data: keyBytes)
    }

    /// For people: the key shortened (the whole one is 1,959 characters).
    public var description: String { "post-quantum age public key \(shortened)" }

    /// `age1pq1` and 8 characters, `...`, the last 8 (checksum included): enough to tell keys apart.
    var shortened: String {
        let text = encoded
        return "\(text.prefix(15))...\(text.suffix(8))"
    }

    public var stanzaTypes: [StanzaType] { [.mlkem768x25519] }

    /// A classic recipient beside this one would undo its protection; `Age` refuses the mix.
    public var isPostQuantum: Bool { true }

    /// Wraps the file key in a new `mlkem768x25519` stanza (a fresh encapsulation each time).
    public func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza] {
        do {
            let publicKey = try XWingMLKEM768X25519.PublicKey(rawRepresentation: keyBytes)
            var sender = try HPKE.Sender(
                recipientKey: publicKey, ciphersuite: HybridRecipient.ciphersuite, info: HybridRecipient.info)
            let body = try fileKey.key.withUnsafeBytes { try sender.seal(UnsafeRawBufferPointer($0)) }
            return [
                Stanza(
                    arguments: [HybridRecipient.stanzaType, Base64.encodeUnpadded(sender.encapsulatedKey)],
                    body: Array(body))
            ]
        } catch {
            // Parsing refuses the keys known to fail here; anything else is still an error, not a crash.
            throw .invalidKey("cannot encrypt to \(description): \(error)")
        }
    }
}
