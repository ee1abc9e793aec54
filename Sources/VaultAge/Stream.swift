internal import Crypto
internal import FoundationEssentials

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
    static func encrypt(_ plaintext: [UInt8], key: SymmetricKey) -> [UInt8] {
        let chunkCount = max(1, (plaintext.count + chunkSize - 1) / chunkSize)
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + chunkCount * tagSize)
        for counter in 0..<chunkCount {
            let start = counter * chunkSize
            let end = min(start + chunkSize, plaintext.count)
            let nonce = chunkNonce(counter: UInt64(counter), last: counter == chunkCount - 1)
            do {
                let box = try ChaChaPoly.seal(plaintext[start..<end], using: key, nonce: nonce)
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
    static func decrypt(_ ciphertext: ArraySlice<UInt8>, key: SymmetricKey) throws(AgeError) -> [UInt8] {
        guard !ciphertext.isEmpty else { throw .payload("payload has no chunks") }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(ciphertext.count)
        var offset = ciphertext.startIndex
        var counter: UInt64 = 0
        while offset < ciphertext.endIndex {
            let remaining = ciphertext.endIndex - offset
            // Whatever fits in one chunk is the final chunk; anything longer holds a full non-final one.
            let last = remaining <= chunkSize + tagSize
            let length = last ? remaining : chunkSize + tagSize
            guard length >= tagSize else {
                wipe(&plaintext)
                throw .payload("payload chunk \(counter) is truncated")
            }
            let sealed = ciphertext[offset..<(offset + length)]
            do {
                let box = try ChaChaPoly.SealedBox(
                    nonce: chunkNonce(counter: counter, last: last),
                    ciphertext: sealed.dropLast(tagSize), tag: sealed.suffix(tagSize))
                var chunk = try ChaChaPoly.open(box, using: key)
                plaintext += chunk
                chunk.resetBytes(in: 0..<chunk.count)  // the chunk is plaintext: leave no copy behind
            } catch {
                wipe(&plaintext)
                throw .payload("payload chunk \(counter) failed to authenticate (altered, truncated or not final)")
            }
            if last && length == tagSize && counter > 0 {
                wipe(&plaintext)
                throw .payload("final payload chunk is empty")
            }
            offset += length
            counter += 1
        }
        return plaintext
    }

    private static func chunkNonce(counter: UInt64, last: Bool) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[10 - index] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * index)) }
        bytes[11] = last ? 1 : 0
        do {
            return try ChaChaPoly.Nonce(data: bytes)
        } catch {
            preconditionFailure("a 12-byte ChaCha20-Poly1305 nonce was rejected")
        }
    }
}
