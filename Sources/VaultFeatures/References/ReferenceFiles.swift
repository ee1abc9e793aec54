public import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The files `vault inject` and `vault exec --env-file` read and write.
public enum ReferenceFiles {
    /// The largest template or env file read, in bytes.
    public static let inputLimit = 64 << 20

    /// Reads a whole input file; a missing one is a usage error naming `what` and the path.
    public static func read(_ path: String, what: String) throws(VaultError) -> [UInt8] {
        guard let bytes = try FileSystem.read(path, limit: inputLimit) else {
            throw VaultError(.usage, "the \(what) \(path) does not exist")
        }
        return bytes
    }

    /// Writes `bytes` to `path` as a file only its owner can read (0600), atomically: a
    /// temporary file with a name of its own in the same directory, flushed, then renamed over
    /// `path`. On any failure the temporary file is removed and `path` is left as it was.
    public static func writePrivate(_ path: String, _ bytes: [UInt8]) throws(VaultError) {
        try FileSystem.writeAtomically(
            bytes, directory: FileSystem.directory(of: path), name: FileSystem.baseName(of: path))
    }

    /// ``writePrivate(_:_:)`` for output that holds secrets (a rendered template).
    public static func writePrivate(_ path: String, _ bytes: SecureBytes) throws(VaultError) {
        try FileSystem.writeAtomically(
            bytes, directory: FileSystem.directory(of: path), name: FileSystem.baseName(of: path))
    }
}
