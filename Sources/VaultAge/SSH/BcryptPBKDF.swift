internal import Crypto
internal import VaultSecureBytes

/// OpenSSH's `bcrypt_pbkdf` (OpenBSD `lib/libutil/bcrypt_pbkdf.c`): the key derivation that
/// protects a passphrase-encrypted `openssh-key-v1` private key.
///
/// PBKDF2's structure with a bcrypt-based hash instead of HMAC, and one deviation: the output
/// bytes of the blocks are interleaved ("output the key material non-linearly"), so that every
/// block must be computed to get any one byte of the key.
enum BcryptPBKDF {
    private static let hashSize = 32
    /// bcrypt's magic plaintext, encrypted 64 times.
    private static let magic = Array("OxychromaticBlowfishSwatDynamite".utf8)

    /// Derives `count` bytes; nil for parameters OpenSSH refuses too (an empty passphrase or
    /// salt, no rounds, more than 1024 bytes asked).
    static func derive(passphrase: SecureBytes, salt: [UInt8], rounds: Int, count: Int) -> SecureBytes? {
        guard rounds >= 1, !passphrase.isEmpty, !salt.isEmpty, salt.count <= 1 << 20,
            count > 0, count <= hashSize * hashSize
        else { return nil }
        let stride = (count + hashSize - 1) / hashSize
        let perBlock = (count + stride - 1) / stride
        let passHash = passphrase.withUnsafeBytes { SecureBytes(SHA512.hash(data: $0)) }
        var key = SecureBytes(zeros: count)
        var block: UInt32 = 1
        var written = 0
        while written < count {
            let counter = (0..<4).map { UInt8(truncatingIfNeeded: block >> (24 - 8 * $0)) }
            var saltHash = SecureBytes(SHA512.hash(data: salt + counter))
            var output = hash(passHash: passHash, saltHash: saltHash)
            var accumulated = output
            var round = 1
            while round < rounds {
                round += 1
                saltHash = output.withUnsafeBytes { SecureBytes(SHA512.hash(data: $0)) }
                output = hash(passHash: passHash, saltHash: saltHash)
                accumulated.withUnsafeMutableBytes { target in
                    output.withUnsafeBytes { source in
                        for index in 0..<hashSize { target[index] ^= source[index] }
                    }
                }
            }
            var taken = 0
            key.withUnsafeMutableBytes { target in
                accumulated.withUnsafeBytes { source in
                    while taken < min(perBlock, count - written) {
                        let destination = taken * stride + Int(block - 1)
                        if destination >= count { break }
                        target[destination] = source[taken]
                        taken += 1
                    }
                }
            }
            written += taken
            block += 1
        }
        return key
    }

    /// bcrypt_hash: eksblowfish keyed by the two SHA-512 digests, then 64 encryptions of the magic
    /// text; the words are written out little-endian (as OpenBSD does).
    private static func hash(passHash: SecureBytes, saltHash: SecureBytes) -> SecureBytes {
        let cipher = Blowfish()
        passHash.withUnsafeBytes { pass in
            saltHash.withUnsafeBytes { salt in
                cipher.expand(key: pass, salt: salt)
                for _ in 0..<64 {
                    cipher.expand(key: salt, salt: nil)
                    cipher.expand(key: pass, salt: nil)
                }
            }
        }
        var words = [UInt32](repeating: 0, count: 8)
        magic.withUnsafeBytes { bytes in
            var cursor = 0
            for index in 0..<8 { words[index] = Blowfish.word(bytes, &cursor) }
        }
        for _ in 0..<64 {
            for pair in 0..<4 {
                var (left, right) = (words[2 * pair], words[2 * pair + 1])
                cipher.encrypt(&left, &right)
                (words[2 * pair], words[2 * pair + 1]) = (left, right)
            }
        }
        defer { words.withUnsafeMutableBytes { zeroSecret($0) } }
        var output = SecureBytes(zeros: hashSize)
        output.withUnsafeMutableBytes { out in
            for (index, word) in words.enumerated() {
                out[4 * index] = UInt8(truncatingIfNeeded: word)
                out[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 8)
                out[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 16)
                out[4 * index + 3] = UInt8(truncatingIfNeeded: word >> 24)
            }
        }
        return output
    }
}
