import VaultAge
public import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A new age identity, as `age-keygen` writes it: a `# created:` line, a `# public key:` line with
/// the recipient, and the secret key.
///
/// Debian's age (1.1) has no `age-keygen -pq`; this makes post-quantum keys in the same format, so
/// that age 1.3 reads vault's key files and vault reads age's.
public struct GeneratedKey: Sendable {
    /// The public key (`age1...` or `age1pq1...`), for `vault init --recipient`.
    public let recipient: String
    /// The identity file's text; it holds the secret key.
    public let identityFile: SecureBytes

    /// Generates an X25519 identity or, with `postQuantum`, an ML-KEM-768 + X25519 hybrid one.
    public static func generate(postQuantum: Bool, now: Timestamp = .now()) throws(VaultError) -> GeneratedKey {
        let recipient: String
        let secret: String
        if postQuantum {
            let identity: HybridIdentity
            do {
                identity = try HybridIdentity.generate()
            } catch {
                throw VaultError(.other, error.message)
            }
            recipient = identity.recipient.encoded
            secret = identity.encoded
        } else {
            let identity = X25519Identity.generate()
            recipient = identity.recipient.encoded
            secret = identity.encoded
        }
        var text = SecureBytes("# created: \(now)\n# public key: \(recipient)\n".utf8)
        text.reserveCapacity(text.count + secret.utf8.count + 1)
        for byte in secret.utf8 { text.append(byte) }
        text.append(UInt8(ascii: "\n"))
        return GeneratedKey(recipient: recipient, identityFile: text)
    }

    /// Writes the identity file to a new file at `path`, mode 0600; `.conflict` if anything is
    /// there already (a key file is never overwritten: the key it held would be lost).
    ///
    /// The file is created with `O_EXCL` and flushed to disk; a failed write removes it.
    public func write(to path: String) throws(VaultError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let errno = Errno(rawValue: Glibc.errno)
            if errno == .fileExists {
                throw VaultError(.conflict, "\(path) already exists; a key file is never overwritten")
            }
            throw systemError("create \(path)", errno)
        }
        var written = false
        defer {
            close(fd)
            if !written { unlink(path) }
        }
        // The umask may have taken bits away, never added: 0600 whatever it is.
        try syscall("set the mode of \(path)") { fchmod(fd, 0o600) }
        try identityFile.withUnsafeBytes { (bytes) throws(VaultError) in
            var offset = 0
            while offset < bytes.count {
                offset += try syscall("write \(path)") {
                    Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                }
            }
        }
        try syscall("flush \(path) to disk") { fsync(fd) }
        written = true
    }
}
