internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes

/// Wraps and unwraps the 16-byte file key in a stanza body: ChaCha20-Poly1305 under a wrap key with
/// an all-zero nonce (safe because every wrap key is used once).
enum KeyWrap {
    static let fileKeySize = 16
    /// A wrapped file key: 16 bytes of ciphertext and a 16-byte tag.
    static let bodySize = 32

    /// Encrypts the file key; the result is a 32-byte stanza body.
    static func seal(_ fileKey: SymmetricKey, with wrapKey: SymmetricKey) -> [UInt8] {
        do {
            let box = try fileKey.withUnsafeBytes { keyBytes in
                try ChaChaPoly.seal(keyBytes, using: wrapKey, nonce: zeroNonce())
            }
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            preconditionFailure("ChaCha20-Poly1305 seal failed with a valid key and nonce")
        }
    }

    /// Decrypts a 32-byte body; nil when it does not authenticate (the stanza is not for this key).
    static func open(_ body: [UInt8], with wrapKey: SymmetricKey) -> SymmetricKey? {
        guard body.count == bodySize else { return nil }
        var opened: Data
        do {
            // nonce || ciphertext || tag in one array: SealedBox(combined:) is inlinable, so this
            // needs no generic metadata at run time (the three-part initialiser does).
            let box = try ChaChaPoly.SealedBox(combined: [UInt8](repeating: 0, count: 12) + body)
            opened = try ChaChaPoly.open(box, using: wrapKey)
        } catch {
            // An authentication failure is the normal answer for a stanza addressed to someone else.
            return nil
        }
        defer { wipe(&opened) }
        return SymmetricKey(data: opened)
    }

    private static func zeroNonce() -> ChaChaPoly.Nonce {
        do {
            return try ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12))
        } catch {
            preconditionFailure("a 12-byte ChaCha20-Poly1305 nonce was rejected")
        }
    }
}
