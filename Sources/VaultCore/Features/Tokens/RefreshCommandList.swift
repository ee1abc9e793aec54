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
    /// not count.
    enum Answer: Equatable {
        case listed
        case notListed
        case ignored(String)
    }

    func lists(_ command: String) -> Answer {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .notListed }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return .ignored("\(path) is not a file") }
        guard st.st_uid == geteuid() else { return .ignored("\(path) belongs to another user") }
        guard st.st_mode & 0o022 == 0 else {
            return .ignored("\(path) may be written by group or others (run: chmod go-w \(path))")
        }
        guard let bytes = try? FileSystem.readAll(fd, path: path, limit: 1 << 20) else {
            return .ignored("\(path) cannot be read")
        }
        let wanted = Array(command.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if line.first == UInt8(ascii: "#") { continue }
            if line.elementsEqual(wanted) { return .listed }
        }
        return .notListed
    }
}
