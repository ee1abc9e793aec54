/// Standard padded base64 (RFC 4648 §4) written from and read into secret bytes in place, so that
/// neither side of the conversion leaves a copy that is not wiped.
extension SecureBytes {
    /// Appends the padded base64 of `bytes`.
    public mutating func appendBase64(of bytes: SecureBytes) {
        let added = Base64.paddedCount(bytes.count)
        guard added > 0 else { return }
        let end = length + added
        makeUnique(capacity: end > storage.capacity ? Swift.max(end, storage.capacity * 2) : end)
        let output = storage.base.unsafelyUnwrapped + length
        bytes.withUnsafeBytes { _ = Base64.encode($0, padded: true, into: output) }
        length = end
    }
}

extension SecureBytes.Arena {
    /// The bytes of `text`, canonical padded base64 (what ``SecureBytes/appendBase64(of:)``
    /// writes), as a slice of this arena; nil if `text` is anything else.
    public mutating func decodingBase64(_ text: UnsafeRawBufferPointer) -> SecureBytes? {
        make(maximumCount: Base64.maximumDecodedCount(text)) { Base64.decodePadded(text, into: $0) }
    }
}
