import VaultAge
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The SHA-256 digests of the age headers vault itself wrote to a vault file, kept in the file's
/// `<path>.lock` companion.
///
/// When no key opens a vault file, the cause is either a wrong key (exit 4) or a damaged header
/// (exit 6); cryptographically the two look the same. Vault keeps the header across writes, so
/// the header only changes on create and rekey, and it records each new header's digest there.
/// A header that matches no recorded digest was changed by something other than vault: damaged.
/// Without a record (a file copied from elsewhere) vault cannot tell and reports the wrong key.
enum HeaderRecord {
    /// Whether the record proves `file`'s header was altered after vault wrote it.
    static func provesDamage(file: [UInt8], lockPath: String) -> Bool {
        guard let bytes = try? FileSystem.readRegularFile(lockPath, limit: 4096) else { return false }
        let digests = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
        guard !digests.isEmpty, digests.allSatisfy({ $0.utf8.count == 64 }) else { return false }
        guard let header = try? Age.header(of: file) else { return true }
        return !digests.contains(Digest.hex(header))
    }

    /// Records a new header before the file that carries it is renamed into place. The previous
    /// digest stays listed, so a crash between the two steps never makes an intact file look damaged.
    static func record(header: [UInt8], previousFile: [UInt8]?, lock: FileLock) throws(VaultError) {
        var digests = [Digest.hex(header)]
        if let previousFile, let previous = try? Age.header(of: previousFile) { digests.append(Digest.hex(previous)) }
        try lock.replaceContents(Array((digests.joined(separator: "\n") + "\n").utf8))
    }
}
