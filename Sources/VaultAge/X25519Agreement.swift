internal import Crypto

/// The one X25519 agreement check, for every key kind built on X25519 (age's X25519, ssh-ed25519,
/// the X25519 half of the post-quantum hybrid). A low-order point, the all-zero point among
/// them, gives the all-zero shared secret with every private key (each is a multiple of the
/// cofactor 8), so the wrap key would be public. swift-crypto does not refuse that secret (to
/// match CryptoKit), so VaultAge does, here.
enum X25519Agreement {
    /// The shared secret of `privateKey` and the point `share`; nil when `share` is not 32 bytes
    /// or is a low-order point (the secret is all zeros).
    static func secret(_ privateKey: Curve25519.KeyAgreement.PrivateKey, with share: [UInt8]) -> SharedSecret? {
        guard let point = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: share),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: point),
            secret.withUnsafeBytes({ bytes in bytes.reduce(0) { $0 | $1 } != 0 })
        else { return nil }
        return secret
    }

    /// Whether a recipient's point gives a secret: 32 bytes and not of low order. Any private
    /// key exposes a low-order point, so a fresh one is used.
    static func isUsable(_ point: [UInt8]) -> Bool {
        secret(Curve25519.KeyAgreement.PrivateKey(), with: point) != nil
    }
}
