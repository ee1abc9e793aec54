import CVaultSecret
internal import Crypto
internal import FoundationEssentials
package import VaultSecureBytes
package import VaultStorage
internal import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#endif

/// One transfer's copy of the process's session with the provider (the spec's
/// dh-ietf1024-sha256-aes128-cbc-pkcs7, or "plain").
///
/// The shim opens the session and does the key agreement's modular exponentiation (libgcrypt:
/// Swift has no public big numbers); the encryption is ``SessionCipher``'s.
final class SecretServiceSession {
    /// The shim's copy of the session, wiped as it is freed.
    let pointer: OpaquePointer
    /// The session's cryptography (none in a plain session).
    private let cipher: SessionCipher

    /// The process's session, opened if need be.
    init(_ call: SecretServiceCall) throws(VaultError) {
        guard let pointer = try call.check({ CVaultSecret_SessionCopy(call.deadline, &$0) }) else {
            throw call.failedSilently("opening a session")
        }
        self.pointer = pointer
        if CVaultSecret_SessionIsPlain(pointer) {
            cipher = SessionCipher(sharedSecret: nil)
        } else {
            cipher = SessionCipher(
                sharedSecret: UnsafeRawBufferPointer(
                    start: CVaultSecret_SessionSharedSecret(pointer), count: Int(CVAULTSECRET_GROUP_BYTES)))
        }
    }

    deinit { CVaultSecret_SessionFree(pointer) }

    func encode(_ secret: SecureBytes) throws(VaultError) -> (parameters: [UInt8], value: SecureBytes) {
        try cipher.encode(secret)
    }

    func decode(parameters: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> SecureBytes? {
        cipher.decode(parameters: parameters, value: value)
    }
}

/// The provider's side of a dh-ietf1024-sha256-aes128-cbc-pkcs7 session (`vault secret-service
/// serve`): the same group, checks and cipher as the client's above.
package enum SessionResponder {
    /// Loads libgcrypt for ``respond(to:)`` if libsecret has not brought it; the reason if not.
    package static func load() -> String? {
        guard let reason = CVaultSecret_LoadGcrypt("libgcrypt.so.20") else { return nil }
        defer { free(reason) }
        return String(cString: reason)
    }

    /// The provider's public value for the client's `peer` and the session's cipher; nil when the
    /// client's value is not a valid public value (the spec's InvalidArgs).
    package static func respond(to peer: [UInt8]) throws(VaultError) -> (publicValue: [UInt8], cipher: SessionCipher)? {
        let groupBytes = Int(CVAULTSECRET_GROUP_BYTES)
        var publicValue = [UInt8](repeating: 0, count: groupBytes)
        var shared = SecureBytes(zeros: groupBytes)
        let response = shared.withUnsafeMutableBytes { (sharedBytes) in
            publicValue.withUnsafeMutableBufferPointer { (publicBytes) in
                peer.withUnsafeBufferPointer { (peerBytes) in
                    CVaultSecret_Respond(
                        peerBytes.baseAddress ?? UnsafePointer(publicBytes.baseAddress!), peerBytes.count,
                        publicBytes.baseAddress!,
                        sharedBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        switch response {
        case CVAULTSECRET_RESPONSE_AGREED:
            let cipher = shared.withUnsafeBytes { SessionCipher(sharedSecret: $0) }
            return (publicValue, cipher)
        case CVAULTSECRET_RESPONSE_INVALID_PEER: return nil
        default: throw VaultError(.other, "cannot make a key pair for a Secret Service session")
        }
    }
}

/// A Secret Service session's cryptography: the key derivation (HKDF-SHA256, no salt, no
/// information) from the key agreement's shared secret and the encryption (AES-128-CBC with
/// PKCS#7 padding), swift-crypto's; or none, in a plain session. Shared by the client's session
/// and the provider's.
package struct SessionCipher {
    /// The session key, or nil in a plain session.
    private let key: SymmetricKey?

    package static let blockBytes = 16
    static let keyBytes = 16

    /// The cipher for a session whose key agreement gave `sharedSecret`; a plain session for nil.
    package init(sharedSecret: UnsafeRawBufferPointer?) {
        key = sharedSecret.map {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: $0), outputByteCount: Self.keyBytes)
        }
    }

    var isPlain: Bool { key == nil }

    /// The Secret struct's parameters (a random initialization vector) and value (the PKCS#7-padded
    /// secret, encrypted) for `secret`; in a plain session, no parameters and the secret itself.
    ///
    /// The chaining is written here over swift-crypto's AES block function, in place in secure
    /// memory: `AES._CBC` copies the plaintext into a `Data` that nothing wipes.
    package func encode(_ secret: SecureBytes) throws(VaultError) -> (parameters: [UInt8], value: SecureBytes) {
        guard let key else { return ([], secret) }
        let blockBytes = Self.blockBytes
        let pad = blockBytes - secret.count % blockBytes
        var value = SecureBytes()
        value.reserveCapacity(secret.count + pad)
        secret.withUnsafeBytes { value.append(contentsOf: $0) }
        for _ in 0..<pad { value.append(UInt8(pad)) }
        let iv = Array(AES._CBC.IV())
        do {
            try value.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) throws in
                let bytes = raw.assumingMemoryBound(to: UInt8.self)  // SecureBytes' storage holds UInt8
                var previous = iv
                for start in stride(from: 0, to: bytes.count, by: blockBytes) {
                    var block = UnsafeMutableBufferPointer(rebasing: bytes[start..<start + blockBytes])
                    for index in 0..<blockBytes { block[index] ^= previous[index] }
                    try AES.permute(&block, key: key)
                    previous = Array(block)  // ciphertext
                }
            }
        } catch {
            throw VaultError(.other, "cannot encrypt the secret for the Secret Service")
        }
        return (iv, value)
    }

    /// The secret in a Secret struct sent through this session, or nil if it does not decrypt to
    /// valid padding (the provider encrypted it with another key: it lost the session). Decrypted
    /// in place in secure memory, as ``encode(_:)`` encrypts.
    package func decode(parameters: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> SecureBytes? {
        guard let key else { return SecureBytes(copying: value) }
        let blockBytes = Self.blockBytes
        guard parameters.count == blockBytes, value.count > 0, value.count % blockBytes == 0 else { return nil }
        var plain = SecureBytes(copying: value)
        let pad = plain.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) -> Int? in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)  // SecureBytes' storage holds UInt8
            var previous = Array(parameters)
            for start in stride(from: 0, to: bytes.count, by: blockBytes) {
                var block = UnsafeMutableBufferPointer(rebasing: bytes[start..<start + blockBytes])
                let ciphertext = Array(block)
                do {
                    try AES.inversePermute(&block, key: key)
                } catch {
                    return nil
                }
                for index in 0..<blockBytes { block[index] ^= previous[index] }
                previous = ciphertext
            }
            let pad = Int(bytes[bytes.count - 1])
            guard (1...blockBytes).contains(pad), bytes[(bytes.count - pad)...].allSatisfy({ $0 == UInt8(pad) })
            else { return nil }
            return pad
        }
        guard let pad else { return nil }
        plain.replaceSubrange((plain.count - pad)..<plain.count, with: EmptyCollection())
        return plain
    }
}
