import VaultSecureBytes
package import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The plaintext of a vault document, handed over in pieces that may split lines anywhere.
///
/// A file vault is decrypted one 64 KiB age chunk at a time (`FileStore`), so a `get` or an
/// `ls` never holds the whole plaintext; a document already in memory is a single piece.
package protocol DocumentChunks {
    /// Calls `body` with each piece, in order. The pieces are valid only during each call.
    func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Void) throws(VaultError)
}

extension Array: DocumentChunks where Element == UInt8 {
    package func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Void) throws(VaultError) {
        try withUnsafeBufferPointer { (buffer) throws(VaultError) in try body(buffer) }
    }
}

extension SecureBytes: DocumentChunks {
    func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Void) throws(VaultError) {
        // The storage is initialised as bytes, so it is bound to UInt8 already.
        try withUnsafeBytes { (raw) throws(VaultError) in try body(raw.assumingMemoryBound(to: UInt8.self)) }
    }
}

/// Cuts pieces of a document into lines (without their newline).
///
/// Whole lines inside a piece are handed out in place; a line that a piece boundary cuts is
/// copied into `carry`, secret bytes that zero themselves, until its end arrives.
struct LineSplitter {
    private var carry = SecureBytes()

    /// Calls `line` with each line completed by `chunk`, until it returns false.
    mutating func split(
        _ chunk: UnsafeBufferPointer<UInt8>, _ line: (JSONLine.Bytes) throws(VaultError) -> Bool
    ) throws(VaultError) -> Bool {
        guard let base = chunk.baseAddress else { return true }
        var start = 0
        while start < chunk.count {
            guard let found = memchr(base + start, 0x0A, chunk.count - start) else { break }
            let end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if carry.isEmpty {
                guard try line(chunk[start..<end]) else { return false }
            } else {
                carry.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chunk[start..<end])))
                let more = try carry.withUnsafeBytes { (joined) throws(VaultError) in
                    try line(joined.assumingMemoryBound(to: UInt8.self)[...])
                }
                carry.removeAll(keepingCapacity: true)  // zeroes the bytes it drops
                guard more else { return false }
            }
            start = end + 1
        }
        carry.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chunk[start...])))
        return true
    }

    /// Whether the document ended inside a line (its last line has no newline).
    var endsInsideALine: Bool { !carry.isEmpty }
}
