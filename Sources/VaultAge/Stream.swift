internal import Crypto
internal import FoundationEssentials
internal import VaultSecureBytes

/// The age payload: STREAM over ChaCha20-Poly1305 in 64 KiB chunks.
///
/// Each chunk's nonce is an 11-byte big-endian counter followed by 0x01 for the final chunk and 0x00
/// otherwise. The final chunk may be shorter than 64 KiB but is empty only when the whole payload is.
enum Stream {
    static let chunkSize = 64 * 1024
    static let tagSize = 16
    static let nonceSize = 16

    /// HKDF-SHA-256(ikm: file key, salt: payload nonce, info: "payload").
    static func payloadKey(fileKey: SymmetricKey, nonce: some Collection<UInt8>) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: fileKey, salt: Array(nonce), info: Array("payload".utf8), outputByteCount: 32)
    }

    /// Encrypts a whole plaintext.
    static func encrypt(_ plaintext: UnsafeRawBufferPointer, key: SymmetricKey) -> [UInt8] {
        let chunkCount = max(1, (plaintext.count + chunkSize - 1) / chunkSize)
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + chunkCount * tagSize)
        for counter in 0..<chunkCount {
            let start = counter * chunkSize
            let end = min(start + chunkSize, plaintext.count)
            let nonce = chunkNonce(counter: UInt64(counter), last: counter == chunkCount - 1)
            do {
                let box = try ChaChaPoly.seal(
                    UnsafeRawBufferPointer(rebasing: plaintext[start..<end]), using: key, nonce: nonce)
                output += box.ciphertext
                output += box.tag
            } catch {
                // Sealing only fails for a bad key or nonce size, which cannot happen here.
                preconditionFailure("ChaCha20-Poly1305 seal failed with a valid key and nonce")
            }
        }
        return output
    }

    /// Decrypts and authenticates a whole payload (after its nonce); nothing is returned on failure.
    static func decrypt(_ ciphertext: ArraySlice<UInt8>, key: SymmetricKey) throws(AgeError) -> SecureBytes {
        guard !ciphertext.isEmpty else { throw .payload("payload has no chunks") }
        var plaintext = SecureBytes()
        plaintext.reserveCapacity(ciphertext.count)
        var offset = ciphertext.startIndex
        var counter: UInt64 = 0
        var opener = ChunkOpener()
        while offset < ciphertext.endIndex {
            let (length, last) = sealedLength(remaining: ciphertext.endIndex - offset)
            // A failure drops `plaintext`, which zeroes itself.
            var opened = try withBytes(of: ciphertext[offset..<(offset + length)]) { (sealed) throws(AgeError) in
                try opener.open(sealed, counter: counter, last: last, key: key)
            }
            opened.withUnsafeBytes { plaintext.append(contentsOf: $0) }
            wipe(&opened)
            offset += length
            counter += 1
        }
        return plaintext
    }

    /// The length of the next sealed chunk (ciphertext and tag) when `remaining` payload bytes are
    /// left, and whether it is the final chunk: whatever fits in one chunk is the final chunk;
    /// anything longer holds a full non-final one.
    static func sealedLength(remaining: Int) -> (length: Int, last: Bool) {
        remaining <= chunkSize + tagSize ? (remaining, true) : (chunkSize + tagSize, false)
    }

    /// Opens single chunks, reusing one buffer for the nonce, ciphertext and tag that
    /// swift-crypto's `SealedBox(combined:)` takes in one piece (its other initialiser copies
    /// through a generic path at about two instructions a byte).
    struct ChunkOpener {
        private var combined: [UInt8] = []

        /// Authenticates and decrypts chunk number `counter`. The caller wipes the plaintext
        /// (`wipe(_:)`) when done with it, or hands it to ``SecureBytes/init(taking:)``.
        mutating func open(
            _ sealed: UnsafeRawBufferPointer, counter: UInt64, last: Bool, key: SymmetricKey
        ) throws(AgeError) -> Data {
            guard sealed.count >= tagSize else { throw .payload("payload chunk \(counter) is truncated") }
            if last && sealed.count == tagSize && counter > 0 { throw .payload("final payload chunk is empty") }
            combined.removeAll(keepingCapacity: true)
            combined.append(contentsOf: chunkNonceBytes(counter: counter, last: last))
            combined.append(contentsOf: sealed)
            do {
                return try combined.withUnsafeBytes {
                    try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: $0), using: key)
                }
            } catch {
                throw .payload("payload chunk \(counter) failed to authenticate (altered, truncated or not final)")
            }
        }
    }

    private static func chunkNonceBytes(counter: UInt64, last: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[10 - index] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * index)) }
        bytes[11] = last ? 1 : 0
        return bytes
    }

    private static func chunkNonce(counter: UInt64, last: Bool) -> ChaChaPoly.Nonce {
        do {
            return try ChaChaPoly.Nonce(data: chunkNonceBytes(counter: counter, last: last))
        } catch {
            preconditionFailure("a 12-byte ChaCha20-Poly1305 nonce was rejected")
        }
    }
}

/// `withUnsafeBytes` for a typed-throws body (the standard library's version only rethrows).
func withBytes<T>(
    of bytes: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) throws(AgeError) -> T
) throws(AgeError) -> T {
    let result: Result<T, AgeError> = bytes.withUnsafeBytes { raw in
        do throws(AgeError) {
            return .success(try body(raw))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
