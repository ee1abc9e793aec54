package import VaultSecureBytes
package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

extension FileSystem {
    /// Reads a small file vault keeps for itself (a cached login, a refresh journal), or returns
    /// nil when it is missing, is not a regular file, belongs to someone else, may be read or
    /// written by group or others, or is larger than `limit` bytes: such a file is not vault's
    /// and is ignored (and replaced at the next write). Never follows a symbolic link.
    package static func readOwnPrivate(_ path: String, limit: Int = 16_384) -> SecureBytes? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(),
            st.st_mode & 0o077 == 0, st.st_size < limit
        else { return nil }
        return try? readSecret(fd, path: path, limit: limit)
    }

    /// Replaces the private file `path` with `bytes` (mode 0600, durably, as
    /// ``writeAtomically(_:directory:name:)``), creating its directory (0700) if needed.
    package static func writePrivate(_ bytes: [UInt8], to path: String) throws(VaultError) {
        try withBytes(bytes) { (raw) throws(VaultError) in try writePrivate(raw, to: path) }
    }

    /// ``writePrivate(_:to:)`` for bytes that hold a secret (a journal entry, a cached login).
    package static func writePrivate(_ bytes: SecureBytes, to path: String) throws(VaultError) {
        try bytes.withUnsafeBytes { (raw) throws(VaultError) in try writePrivate(raw, to: path) }
    }

    private static func writePrivate(_ bytes: UnsafeRawBufferPointer, to path: String) throws(VaultError) {
        let directory = directory(of: path)
        try makePrivateDirectory(directory, holdingSecrets: true)
        try writeAtomically(bytes, directory: directory, name: baseName(of: path))
    }

    /// Creates `path` (0700) if needed and checks it is a folder of the user's that others
    /// cannot use: one that belongs to someone else (`sudo -E` keeps the user's
    /// `XDG_RUNTIME_DIR`) or that others may write to (they could plant or hold lock files,
    /// or replace a file) is refused with one line. A folder for files `holdingSecrets`
    /// (refresh journals, cached logins) may not be readable by others either: mode 0700, as
    /// docs/tokens.md says.
    package static func makePrivateDirectory(_ path: String, holdingSecrets: Bool) throws(VaultError) {
        try makeDirectories(path)
        try checkPrivateDirectory(path, holdingSecrets: holdingSecrets)
    }

    /// Throws as ``makePrivateDirectory(_:holdingSecrets:)`` does for a folder that exists.
    package static func checkPrivateDirectory(_ path: String, holdingSecrets: Bool) throws(VaultError) {
        var st = stat()
        try syscall("stat the folder \(path)") { stat(path, &st) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw VaultError(.other, "\(path) is not a folder; vault keeps its locks and journals there")
        }
        guard st.st_uid == geteuid() else {
            throw VaultError(
                .other,
                "the folder \(path) belongs to uid \(st.st_uid), not to uid \(geteuid()); "
                    + "vault keeps locks and secrets only in its user's own folders")
        }
        let open: mode_t = holdingSecrets ? 0o077 : 0o022
        guard st.st_mode & open == 0 else {
            throw VaultError(
                .other,
                "the folder \(path) is open to others (mode \(String(st.st_mode & 0o7777, radix: 8)))",
                remedy: .restrictMode(path: path, mode: "700"))
        }
    }
}
