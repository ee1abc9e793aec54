import VaultSecureBytes

extension JSONValue {
    /// Overwrites the bytes of every string in the tree with zeros, where they are stored: for a
    /// response or request body that held a secret, once it is no longer needed.
    ///
    /// The storage is written in place even when other copies of the tree (or an array taken
    /// from it with ``stringBytes``) share it, on purpose: a copy-on-write wipe would copy a
    /// shared array and zero only the copy, leaving the secret where it was. So call it only at
    /// the end of the tree's life, on a tree made at run time (parsed, or built from a value),
    /// never on one holding array literals.
    package func wipeStrings() {
        switch self {
        case .string(let bytes):
            bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                zeroSecret(
                    UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: base), count: buffer.count))
            }
        case .array(let elements):
            for element in elements { element.wipeStrings() }
        case .object(let members):
            for member in members { member.value.wipeStrings() }
        case .null, .bool, .number:
            break
        }
    }
}
