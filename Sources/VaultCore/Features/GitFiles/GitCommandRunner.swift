import CVaultProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `git` for `vault git setup`: git's own parser reads and writes its configuration and
/// finds the repository (work trees, `GIT_DIR`, `.git` files), so vault never edits
/// `.git/config` by hand.
struct GitCommandRunner {
    /// The environment git runs with (the tool's, read once by the glue).
    let environment: [String: String]

    /// git's standard output and exit status; its standard error goes to vault's.
    func run(_ arguments: [String]) throws(VaultError) -> (status: Int32, output: String) {
        var fds: [Int32] = [0, 0]
        try syscall("create a pipe for git") { pipe(&fds) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        _ = CVaultProcess_addCloseFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = (["git"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "git", &actions, nil, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw systemError("run git", Errno(rawValue: spawned), code: .unavailable)
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case .success(let count) = valueOrErrno({
            chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        }),
            count > 0
        {
            output.append(contentsOf: chunk[..<count])
        }
        close(readEnd)
        var status: Int32 = 0
        _ = valueOrErrno { waitpid(pid, &status, 0) }
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, String(decoding: output, as: UTF8.self))
    }

    /// git's output, trimmed; a failure of git is `.unavailable` naming what was asked.
    func output(_ arguments: [String], what: String) throws(VaultError) -> String {
        let (status, output) = try run(arguments)
        guard status == 0 else { throw VaultError(.unavailable, "git could not \(what) (exit status \(status))") }
        return output.trimmingSuffix(while: { $0 == "\n" })
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, predicate(last) { text.removeLast() }
        return text
    }
}

/// The command lines vault gives git: arguments for git, never words for the user (the one file
/// `LibraryWordingTests` lets name flags, for that reason).
enum GitArguments {
    static let topLevel = ["rev-parse", "--show-toplevel"]
    static let prefix = ["rev-parse", "--show-prefix"]
    static let commonDirectory = ["rev-parse", "--git-common-dir"]
    static func localValue(_ key: String) -> [String] { ["config", "--local", "--get", key] }
    static func setLocal(_ key: String, _ value: String) -> [String] { ["config", "--local", key, value] }
}
