internal import Crypto
public import VaultSecureBytes

extension AgeEnvelope {
    /// An HMAC-SHA256 of `context` and `message` under a key derived from the file key with
    /// HKDF-SHA256 and `label` as its info.
    ///
    /// The file key itself never leaves this module: a caller gets only a keyed digest, which
    /// tells equal messages from different ones to whoever holds the file key, and lets nobody
    /// else confirm a guessed message (a bare hash of a short secret would). A rekey draws a new
    /// file key, so every digest changes with it. `context` (public bytes, such as the name the
    /// message is kept under) is bound into the digest, so that one message under two contexts
    /// gives unrelated digests; its length comes first, so no context and message pair reads as
    /// another.
    public func keyedDigest(of message: SecureBytes, context: [UInt8], label: String) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, info: Array(label.utf8), outputByteCount: SHA256.byteCount)
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: withUnsafeBytes(of: UInt64(context.count).bigEndian) { Array($0) })
        mac.update(data: context)
        message.withTemporaryArray { mac.update(data: $0) }
        return Array(mac.finalize())
    }
}
