internal import Crypto
internal import VaultSecureBytes

/// An SSH public key: its type, its wire-format blob and the comment it came with.
///
/// Read from an `authorized_keys`-style line (`ssh-ed25519 AAAA... alice@laptop`, as in
/// `~/.ssh/id_ed25519.pub` or GitHub's `USER.keys`) or from an OpenSSH private key file.
struct SSHPublicKey: Sendable, Hashable {
    /// The key types age encrypts to.
    static let ed25519 = "ssh-ed25519"
    static let rsa = "ssh-rsa"
    /// Key types vault recognises and cannot use (as age cannot): named in the warning for a
    /// skipped line. Any other type is "an unknown SSH key type", never quoted.
    static let unsupportedTypes: Set<String> = [
        "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com", "ssh-dss",
    ]

    let type: String
    let blob: [UInt8]
    let comment: String

    /// `SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` shows it.
    var fingerprint: String { "SHA256:" + Base64.encodeUnpadded(Array(SHA256.hash(data: blob))) }

    /// The 4-byte tag age writes into a stanza: unpadded base64 of the blob's SHA-256 prefix.
    var tag: String { Base64.encodeUnpadded(Array(SHA256.hash(data: blob)).prefix(4)) }

    /// `ssh-ed25519 key SHA256:... (alice@laptop)`.
    var description: String {
        let printable = String(
            comment.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return "\(type) key \(fingerprint)" + (printable.isEmpty ? "" : " (\(printable))")
    }

    /// `TYPE BASE64 [COMMENT]`, as the key was given.
    var line: String {
        let base = "\(type) \(String(decoding: Base64.encodePadded(blob), as: UTF8.self))"
        return comment.isEmpty || comment.contains(where: \.isNewline) ? base : base + " " + comment
    }

    init(type: String, blob: [UInt8], comment: String) {
        self.type = type
        self.blob = blob
        self.comment = comment
    }

    /// Whether a recipient line looks like an SSH key (so the SSH parser, not age's, explains it).
    static func looksLikeLine(_ line: String) -> Bool {
        line.hasPrefix("ssh-") || line.hasPrefix("ecdsa-") || line.hasPrefix("sk-")
    }

    /// Parses `TYPE BASE64 [COMMENT]`. A type age cannot use is `.unsupportedKey` naming the type
    /// when it is a known one; messages never quote the key.
    init(line: String) throws(AgeError) {
        let fields = line.split(maxSplits: 2, whereSeparator: { $0 == " " || $0 == "\t" })
        let type = fields.first.map(String.init) ?? ""
        guard type == Self.ed25519 || type == Self.rsa else {
            if Self.unsupportedTypes.contains(type) {
                throw .unsupportedKey("\(type) keys are not supported (age encrypts to ssh-ed25519 and ssh-rsa keys)")
            }
            throw .unsupportedKey("an unknown SSH key type (age encrypts to ssh-ed25519 and ssh-rsa keys)")
        }
        guard fields.count >= 2, let blob = Base64.decodePadded(Array(fields[1].utf8)) else {
            throw .invalidKey("malformed \(type) public key: not base64")
        }
        var reader = SSHReader(blob)
        guard reader.text() == type else {
            throw .invalidKey("malformed \(type) public key: its data is for another key type")
        }
        self.init(type: type, blob: blob, comment: fields.count > 2 ? fields[2].trimmingSpaces : "")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
