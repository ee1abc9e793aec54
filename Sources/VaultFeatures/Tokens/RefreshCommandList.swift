import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The refresh commands this user allows on this machine whatever store they come from:
/// `$XDG_CONFIG_HOME/vault/refresh-commands` (default `~/.config/vault/refresh-commands`).
///
/// One command per line, exactly as given to `--refresh-command`; empty lines and lines starting
/// with `#` are ignored. The file counts only when the user could have written it and nobody
/// else could: a regular file owned by the user, not writable by group or others. A command
/// read from a store that is listed here runs without a record of its own (a CI runner that never
/// ran `set --refresh-command`).
struct RefreshCommandList {
    let path: String

    /// Whether the file lists `command`; `.ignored` with the reason when the file exists but does
    /// not count, or cannot be opened or read for any reason but its absence.
    enum Answer: Equatable {
        case listed
        case notListed
        case ignored(String)
    }

    func lists(_ command: String) -> Answer {
        let fd: Int32
        // Only a missing file lists nothing; one that cannot be opened (EACCES, EIO, ELOOP) may
        // well list the command, so the user is told why it did not count.
        switch valueOrErrno({ open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }) {
        case .success(let opened): fd = opened
        case .failure(.noSuchFileOrDirectory): return .notListed
        case .failure(let errno): return .ignored(systemError("open \(path)", errno).message)
        }
        defer { close(fd) }
        var st = stat()
        if case .failure(let errno) = valueOrErrno({ fstat(fd, &st) }) {
            return .ignored(systemError("stat \(path)", errno).message)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .ignored("\(path) is not a file") }
        guard st.st_uid == geteuid() else { return .ignored("\(path) belongs to another user") }
        guard st.st_mode & 0o022 == 0 else {
            return .ignored(
                "\(path) may be written by group or others (mode \(String(st.st_mode & 0o777, radix: 8)))")
        }
        let bytes: [UInt8]
        do throws(VaultError) {
            bytes = try FileSystem.readAll(fd, path: path, limit: 1 << 20)
        } catch {
            return .ignored(error.message)
        }
        let wanted = Array(command.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if line.first == UInt8(ascii: "#") { continue }
            if line.elementsEqual(wanted) { return .listed }
        }
        return .notListed
    }
}
