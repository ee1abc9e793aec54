/// Overwrites an array that held secret bytes (a file key, a passphrase, a token on its way to
/// an API that takes `[UInt8]`) with zeros, as ``SecureBytes`` does with its own storage.
///
/// Only this array's buffer is wiped: copies made earlier by copy-on-write are not. Bytes that
/// live on belong in ``SecureBytes``, which needs no call.
public func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { zeroSecret($0) }
}
