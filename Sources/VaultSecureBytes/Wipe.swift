public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Overwrites memory that held a secret with zeros, in a way the optimiser cannot drop as a dead
/// store (`explicit_bzero`). Every wipe in vault's Swift code comes here: ``SecureBytes`` on
/// release, the functions below, and buffers that C hands over.
public func zeroSecret(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    explicit_bzero(base, bytes.count)
}

/// Overwrites an array that held secret bytes (a file key, a passphrase, a token on its way to
/// an API that takes `[UInt8]`) with zeros, as ``SecureBytes`` does with its own storage.
///
/// Only this array's buffer is wiped: copies made earlier by copy-on-write are not. Bytes that
/// live on belong in ``SecureBytes``, which needs no call.
public func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { zeroSecret($0) }
}

/// Overwrites `Data` that held secret bytes with zeros: what swift-crypto returns from `open`,
/// what Foundation's base64 decoder returns. The same caveat as for arrays holds.
public func wipe(_ data: inout Data) {
    data.withUnsafeMutableBytes { zeroSecret($0) }
}
