internal import Crypto
internal import FoundationEssentials
public import VaultSecureBytes
internal import _CryptoExtras

/// An OpenSSH private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`, the `openssh-key-v1`
/// format of OpenSSH's PROTOCOL.key), as `ssh-keygen` writes it: one ed25519 or RSA key,
/// unencrypted or encrypted with bcrypt_pbkdf and AES in CTR mode (`ssh-keygen`'s default is
/// aes256-ctr with 16 rounds).
///
/// Parsing never needs the passphrase: the public key is stored in the clear, so an encrypted key
/// can name itself, be matched against a header's stanzas, and give a new file its recipient
/// before anybody is asked anything.
struct OpenSSHPrivateKey: Sendable {
    static let begin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    static let end = "-----END OPENSSH PRIVATE KEY-----"
    private static let magic = Array("openssh-key-v1".utf8) + [0]
    /// Ciphers vault decrypts: name, key length. The IV is 16 bytes for each.
    private static let ciphers: [String: Int] = ["aes256-ctr": 32, "aes192-ctr": 24, "aes128-ctr": 16]
    /// More rounds than this is a file made to stall whoever opens it (ssh-keygen's default is 16).
    static let maximumRounds = 1 << 12

    let publicKey: SSHPublicKey
    let cipher: String
    let salt: [UInt8]
    let rounds: Int
    let privateSection: [UInt8]

    var isEncrypted: Bool { cipher != "none" }

    /// Reads the armored file; `.invalidKey` naming what is wrong, never quoting the file.
    init(text: String) throws(AgeError) {
        let lines = Age.keyLines(text).map(\.line)
        guard lines.first == Self.begin, let endIndex = lines.firstIndex(of: Self.end) else {
            throw .invalidKey("malformed OpenSSH private key: no BEGIN and END lines")
        }
        guard let binary = Base64.decodePadded(Array(lines[1..<endIndex].joined().utf8)) else {
            throw .invalidKey("malformed OpenSSH private key: not base64")
        }
        try self.init(binary: binary)
    }

    init(binary: [UInt8]) throws(AgeError) {
        guard binary.starts(with: Self.magic) else {
            throw .invalidKey("not an OpenSSH private key (openssh-key-v1)")
        }
        var reader = SSHReader(Array(binary.dropFirst(Self.magic.count)))
        guard let cipher = reader.text(), let kdf = reader.text(), let kdfOptions = reader.string(),
            let count = reader.uint32(), let publicBlob = reader.string(), let privateSection = reader.string(),
            // An AEAD cipher (chacha20-poly1305@openssh.com, aes256-gcm@openssh.com) puts its tag
            // after the private section; vault reads none, and refuses them by name below.
            reader.isAtEnd || (cipher != "none" && Self.ciphers[cipher] == nil)
        else { throw .invalidKey("malformed OpenSSH private key") }
        guard count == 1 else { throw .invalidKey("OpenSSH private key file holds \(count) keys; vault reads one") }
        let type = SSHReader(publicBlob).withText { $0 }
        guard type == SSHPublicKey.ed25519 || type == SSHPublicKey.rsa else {
            let named =
                type.map { SSHPublicKey.unsupportedTypes.contains($0) } == true ? type! : "an unknown SSH key type"
            throw .unsupportedKey("\(named) private keys are not supported (age uses ssh-ed25519 and ssh-rsa keys)")
        }
        publicKey = SSHPublicKey(type: type!, blob: publicBlob, comment: "")
        self.cipher = cipher
        self.privateSection = privateSection
        switch (cipher, kdf) {
        case ("none", "none"):
            salt = []
            rounds = 0
        case (_, "bcrypt"):
            guard Self.ciphers[cipher] != nil else {
                throw .unsupportedKey(
                    "the SSH key is encrypted with \(Self.safeName(cipher)), which vault cannot decrypt (it reads aes256-ctr, ssh-keygen's default, and aes192-ctr and aes128-ctr)",
                    remedy: .reencryptSSHKeyWithAES256CTR)
            }
            var options = SSHReader(kdfOptions)
            guard let salt = options.string(), let rounds = options.uint32(), options.isAtEnd, !salt.isEmpty else {
                throw .invalidKey("malformed OpenSSH private key: bad bcrypt options")
            }
            guard rounds >= 1, rounds <= Self.maximumRounds else {
                throw .invalidKey(
                    "OpenSSH private key asks for \(rounds) bcrypt rounds (vault allows 1 to \(Self.maximumRounds))")
            }
            self.salt = salt
            self.rounds = Int(rounds)
        default:
            throw .unsupportedKey("the SSH key uses the key derivation \(Self.safeName(kdf)), which vault cannot use")
        }
        guard privateSection.count % 8 == 0, !privateSection.isEmpty else {
            throw .invalidKey("malformed OpenSSH private key: private section of a bad length")
        }
    }

    /// The identity, decrypting with `passphrase` when the key is encrypted. A wrong passphrase
    /// is `.invalidKey` ("wrong passphrase"): the check words OpenSSH stores then differ.
    func identity(passphrase: SecureBytes?) throws(AgeError) -> any AgeIdentity {
        var plain = try decrypt(passphrase: passphrase)
        defer { wipe(&plain) }
        var reader = SSHReader(plain)
        guard let check1 = reader.uint32(), let check2 = reader.uint32() else {
            throw .invalidKey("malformed OpenSSH private key")
        }
        guard check1 == check2 else {
            throw .invalidKey(isEncrypted ? "wrong passphrase for the SSH key" : "malformed OpenSSH private key")
        }
        guard let type = reader.text(), type == publicKey.type else {
            throw .invalidKey("malformed OpenSSH private key: the private key's type differs from the public key's")
        }
        let identity: any AgeIdentity
        let malformed = AgeError.invalidKey("malformed \(type) private key")
        if type == SSHPublicKey.ed25519 {
            guard let point = reader.string(), point.count == 32, var secret = reader.string(), secret.count == 64
            else { throw malformed }
            defer { wipe(&secret) }
            guard Array(secret[32...]) == point, SSHEd25519Recipient.blob(point: point) == publicKey.blob else {
                throw .invalidKey("malformed ssh-ed25519 private key: its public half does not match")
            }
            identity = try SSHEd25519Identity(key: publicKey, seed: SecureBytes(secret[..<32]))
        } else {
            guard let n = reader.positiveInteger(), let e = reader.positiveInteger(), var d = reader.positiveInteger(),
                var iqmp = reader.positiveInteger(), var p = reader.positiveInteger(), var q = reader.positiveInteger()
            else { throw malformed }
            defer {
                wipe(&d)
                wipe(&iqmp)
                wipe(&p)
                wipe(&q)
            }
            var writer = SSHWriter()
            writer.string(Array(SSHPublicKey.rsa.utf8))
            writer.positiveInteger(e)
            writer.positiveInteger(n)
            guard writer.bytes == publicKey.blob else {
                throw .invalidKey("malformed ssh-rsa private key: its public half does not match")
            }
            identity = try SSHRSAIdentity(
                key: publicKey, n: n, e: e, d: SecureBytes(d), p: SecureBytes(p), q: SecureBytes(q))
        }
        guard reader.string() != nil else { throw malformed }  // the comment
        // Padding 1, 2, 3, ... up to the cipher's block size.
        for (index, byte) in reader.remaining.enumerated() where byte != UInt8(truncatingIfNeeded: index + 1) {
            throw .invalidKey(
                isEncrypted ? "wrong passphrase for the SSH key" : "malformed OpenSSH private key: bad padding")
        }
        return identity
    }

    private func decrypt(passphrase: SecureBytes?) throws(AgeError) -> [UInt8] {
        guard isEncrypted, let keySize = Self.ciphers[cipher] else { return privateSection }
        guard let passphrase, !passphrase.isEmpty else { throw .invalidKey("the SSH key needs a passphrase") }
        guard privateSection.count % 16 == 0 else {
            throw .invalidKey("malformed OpenSSH private key: private section of a bad length")
        }
        guard let material = BcryptPBKDF.derive(passphrase: passphrase, salt: salt, rounds: rounds, count: keySize + 16)
        else { throw .invalidKey("malformed OpenSSH private key: bad bcrypt options") }
        do {
            return try material.withUnsafeBytes { bytes in
                let key = SymmetricKey(data: bytes.prefix(keySize))
                let nonce = try AES._CTR.Nonce(nonceBytes: Array(bytes[keySize...]))
                var plain = try AES._CTR.decrypt(privateSection, using: key, nonce: nonce)
                defer { wipe(&plain) }
                return Array(plain)
            }
        } catch {
            throw .invalidKey("the SSH key could not be decrypted")
        }
    }

    /// A cipher or KDF name from the file, quoted only when it is short printable ASCII.
    private static func safeName(_ name: String) -> String {
        name.utf8.count <= 40 && name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ? name : "an unknown method"
    }
}

extension SSHReader {
    /// The key type at the start of a blob.
    fileprivate func withText<T>(_ body: (String?) -> T) -> T {
        var copy = self
        return body(copy.text())
    }
}

extension SSHEd25519Recipient {
    /// The wire blob of an ed25519 public key.
    static func blob(point: [UInt8]) -> [UInt8] {
        var writer = SSHWriter()
        writer.string(Array(SSHPublicKey.ed25519.utf8))
        writer.string(point)
        return writer.bytes
    }
}
