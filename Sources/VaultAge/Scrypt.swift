internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes
internal import _CryptoExtras

/// The scrypt (passphrase) recipient type: wrap key = scrypt(N = 2^logN, r = 8, p = 1) over
/// "age-encryption.org/v1/scrypt" || salt.
enum Scrypt {
    static let stanzaType = "scrypt"
    static let saltSize = 16
    /// Work factors this implementation can encrypt to (age itself refuses above 30 too).
    static let encryptableWorkFactors = 1...30
    /// The largest work factor whose N = 2^logN is meaningful here; anything larger is malformed.
    static let largestWorkFactor = 62
    private static let saltPrefix = Array("age-encryption.org/v1/scrypt".utf8)

    /// Wraps the file key under a passphrase in a new scrypt stanza with a fresh salt.
    static func wrap(_ fileKey: FileKey, passphrase: SecureBytes, workFactor: Int) throws(AgeError) -> Stanza {
        guard !passphrase.isEmpty else { throw .invalidKey("the scrypt passphrase is empty") }
        guard encryptableWorkFactors.contains(workFactor) else {
            throw .invalidKey(
                "scrypt work factor \(workFactor) is outside \(encryptableWorkFactors.lowerBound)...\(encryptableWorkFactors.upperBound)"
            )
        }
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let wrapKey = try deriveKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
        return Stanza(
            arguments: [stanzaType, Base64.encodeUnpadded(salt), String(workFactor)],
            body: KeyWrap.seal(fileKey.key, with: wrapKey))
    }

    /// Unwraps the file key from an scrypt stanza, if the passphrase is right.
    ///
    /// Malformed stanzas are header errors and a work factor above `maxWorkFactor` is a work-factor
    /// error, both found before scrypt runs. A wrong passphrase gives nil.
    static func unwrap(_ stanzas: [Stanza], passphrase: SecureBytes, maxWorkFactor: Int) throws(AgeError)
        -> FileKey?
    {
        for stanza in stanzas where stanza.type == stanzaType {
            guard stanza.arguments.count == 3 else {
                throw .header("scrypt stanza must have exactly two arguments after its type")
            }
            guard let salt = Base64.decodeUnpadded(stanza.arguments[1]), salt.count == saltSize else {
                throw .header("scrypt stanza salt is not the canonical base64 of 16 bytes")
            }
            let workFactor = try parseWorkFactor(stanza.arguments[2])
            guard workFactor <= maxWorkFactor else {
                throw AgeError(
                    kind: .workFactor,
                    message: "scrypt work factor \(workFactor) is above the limit \(maxWorkFactor)")
            }
            guard stanza.body.count == KeyWrap.bodySize else {
                throw .header("scrypt stanza body is not a 16-byte wrapped file key")
            }
            let wrapKey = try deriveKey(passphrase: passphrase, salt: salt, workFactor: workFactor)
            if let fileKey = KeyWrap.open(stanza.body, with: wrapKey) { return FileKey(fileKey) }
        }
        return nil
    }

    /// A decimal number without sign or leading zeros (`^[1-9][0-9]*$`), at most `largestWorkFactor`.
    static func parseWorkFactor(_ text: String) throws(AgeError) -> Int {
        let digits = Array(text.utf8)
        guard let first = digits.first, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            throw .header("scrypt work factor is not a decimal number without leading zeros")
        }
        guard digits.count <= 2, let value = Int(text), value <= largestWorkFactor else {
            throw .header("scrypt work factor is out of range")
        }
        return value
    }

    /// The wrap key for `passphrase`: the one place a passphrase leaves ``SecureBytes``, as the
    /// array swift-crypto's scrypt takes, wiped when it returns.
    private static func deriveKey(passphrase: SecureBytes, salt: [UInt8], workFactor: Int) throws(AgeError)
        -> SymmetricKey
    {
        do {
            return try passphrase.withTemporaryArray { (bytes) throws(any Error) in
                try KDF.Scrypt.deriveKey(
                    from: bytes, salt: saltPrefix + salt, outputByteCount: 32,
                    rounds: 1 << workFactor, blockSize: 8, parallelism: 1)
            }
        } catch {
            throw AgeError(
                kind: .workFactor, message: "scrypt with work factor \(workFactor) failed (not enough memory?)")
        }
    }
}
