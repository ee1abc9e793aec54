internal import Crypto
public import VaultSecureBytes

extension AgeEnvelope {
    /// An HMAC-SHA256 of `message` under a key derived from the file key with HKDF-SHA256 and
    /// `label` as its info.
    ///
    /// The file key itself never leaves this module: a caller gets only a keyed digest, which
    /// tells equal messages from different ones to whoever holds the file key, and lets nobody
    /// else confirm a guessed message (a bare hash of a short secret would). A rekey draws a new
    /// file key, so every digest changes with it.
    public func keyedDigest(of message: SecureBytes, label: String) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, info: Array(label.utf8), outputByteCount: SHA256.byteCount)
        return message.withTemporaryArray { Array(HMAC<SHA256>.authenticationCode(for: $0, using: key)) }
    }
}
