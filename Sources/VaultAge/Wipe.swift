#if canImport(Glibc)
    import Glibc
#endif

/// Overwrites a buffer that held secret bytes (a file key, a passphrase copy) with zeros.
///
/// `explicit_bzero` is used where it exists because the optimiser may drop plain stores to memory
/// that is about to be freed. Only this buffer is wiped: copies made earlier by copy-on-write are not.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Glibc)
            explicit_bzero(base, buffer.count)
        #else
            for index in buffer.indices { buffer[index] = 0 }
        #endif
    }
}
