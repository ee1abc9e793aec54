import VaultAge

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `--refresh-command` through `sh -c` and returns what it printed.
///
/// The command gets no secret: its argv is `sh -c CMD`, its standard input is /dev/null, and its
/// environment is vault's without the variables that hold key material (see
/// ``TokenSettings/commandEnvironment``). Its standard error is vault's, so its own messages
/// reach the user unchanged.
enum RefreshCommand {
    /// The most a command may print, in bytes.
    static let outputLimit = 1 << 20

    static func run(_ command: String, environment: [String: String], name: SecretName) throws(VaultError)
        -> [UInt8]
    {
        var fds: [Int32] = [0, 0]
        try syscall("create a pipe for the refresh command") { pipe(&fds) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Neither end may leak into another child; dup2 onto the command's stdout clears the flag there.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        let words: [String] = ["sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw systemError("start the refresh command of '\(name.account)'", Errno(rawValue: spawned))
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var overflow = false
        while true {
            guard
                case .success(let n) = valueOrErrno({
                    chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                }),
                n > 0
            else { break }
            if output.count + n > outputLimit {
                overflow = true
            } else {
                output += chunk[..<n]
            }
        }
        wipe(&chunk)
        close(readEnd)
        var status: Int32 = 0
        _ = valueOrErrno { waitpid(pid, &status, 0) }
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            wipe(&output)
            let how = exited ? "exited with status \(code)" : "was killed by signal \(status & 0x7F)"
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' \(how)")
        }
        if overflow {
            wipe(&output)
            throw VaultError(.unavailable, "the refresh command of '\(name.account)' printed more than 1 MiB")
        }
        return output
    }
}
