import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `vault exec`'s command as vault's child, its output masked where it is not a terminal.
struct ExecMasking {
    /// Where secrets are masked.
    enum Mode {
        /// Standard output and error that are not terminals (the default).
        case offTerminal
        /// Both, terminals too (`--mask`).
        case always
        /// Neither (`--no-mask`).
        case off
    }

    let mode: Mode
    /// GitHub Actions (or Forgejo's) runs vault: it is told the forms to mask in every later step.
    let actions: Bool

    init(_ mode: Mode, actions: Bool) {
        self.mode = mode
        self.actions = actions
    }

    /// Whether `fd`'s output is masked.
    func masks(_ fd: Int32) -> Bool {
        switch mode {
        case .always: true
        case .off: false
        case .offTerminal: !StandardIO.isTerminal(fd)
        }
    }

    /// Starts `arguments` with vault's environment less `removing` and the variables being set,
    /// plus `setting`; relays its output, masking `secrets`, and waits for it. Returns its exit
    /// status, or dies of the signal that killed it; if it cannot start, prints one line and
    /// returns what a shell would (127: not found, 126: found but not executable).
    ///
    /// The environment is built as a new array rather than with `setenv`, which is not safe
    /// while another thread (a D-Bus worker of the Secret Service backend) may read it.
    func run(
        _ arguments: [String], setting variables: [(variable: String, value: [UInt8])],
        secrets: [(variable: String, value: [UInt8])], removing: [String]
    ) -> Int32 {
        let masked = [Int32(1), 2].filter { masks($0) }
        var mask: OutputMask?
        if !masked.isEmpty || (actions && mode != .off) {
            let built = OutputMask(values: secrets)
            for variable in built.tooShort {
                StandardIO.error(
                    "exec: \(variable) is shorter than \(OutputMask.minimumLength) bytes: it is not masked in the output"
                )
            }
            mask = built
        }
        if actions && mode != .off { announce(secrets) }

        var envp = ProcessEnvironment.entries(dropping: removing + variables.map(\.variable))
        var added: [UnsafeMutableBufferPointer<UInt8>] = []
        for (variable, value) in variables {
            let bytes = Array(variable.utf8) + [UInt8(ascii: "=")] + value + [0]
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = buffer.initialize(from: bytes)
            added.append(buffer)
            envp.append(UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
        envp.append(nil)
        defer {
            for buffer in added {
                zeroSecret(UnsafeMutableRawBufferPointer(buffer))
                buffer.deallocate()
            }
        }

        // Standard output and error as one pipe when they are one (2>&1 into a CI log), so that
        // their order is kept between them too.
        let pipes = Self.pipes(for: mask == nil ? [] : masked)
        let ignored = Hygiene.prepareForCommand()
        let command: Command
        do throws(Errno) {
            command = try Command.start(
                arguments, environment: envp, output: pipes.first { $0.targets.contains(1) }?.write,
                errorOutput: pipes.first { $0.targets.contains(2) }?.write, ignored: ignored)
        } catch {
            for pipe in pipes {
                close(pipe.read)
                close(pipe.write)
            }
            let notFound = error == .noSuchFileOrDirectory
            let searched = !arguments[0].contains("/")
            StandardIO.error("exec: \(arguments[0]): \(notFound && searched ? "command not found" : error.description)")
            return notFound ? 127 : 126
        }
        for pipe in pipes { close(pipe.write) }
        // A reader of vault's output that went away is the command's to learn (ExecRelay.write).
        _ = signal(SIGPIPE, SIG_IGN)
        let status =
            if let mask, !pipes.isEmpty {
                ExecRelay.run(
                    command, pipes: pipes.map { ($0.read, $0.targets[0]) }, mask: mask.automaton)
            } else {
                command.status()
            }
        return Self.exitStatus(status)
    }

    /// One pipe per masked descriptor, or one for both when they are the same pipe, socket or
    /// terminal: `(read end, write end, the descriptors it stands for)`.
    private static func pipes(for masked: [Int32]) -> [(read: Int32, write: Int32, targets: [Int32])] {
        var groups: [[Int32]] = []
        for fd in masked {
            if let index = groups.firstIndex(where: { sameStream($0[0], fd) }) {
                groups[index].append(fd)
            } else {
                groups.append([fd])
            }
        }
        return groups.compactMap { targets in
            guard let ends = try? Command.pipeClosedOnExec() else { return nil }
            // 1 MiB instead of 64 KiB (F_SETPIPE_SZ, Linux's, hidden from Swift with _GNU_SOURCE):
            // fewer, larger reads; the kernel's limit for a user may refuse it, which costs speed only.
            _ = fcntl(ends.write, 1031, Int32(1 << 20))
            return (ends.read, ends.write, targets)
        }
    }

    /// Whether two descriptors are one pipe, socket or character device (a regular file may be
    /// opened twice with two offsets).
    private static func sameStream(_ first: Int32, _ second: Int32) -> Bool {
        var a = stat()
        var b = stat()
        guard fstat(first, &a) == 0, fstat(second, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino else {
            return false
        }
        let kind = a.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR
    }

    /// Tells GitHub Actions every form of every secret (`::add-mask::`, with the data escapes of
    /// its workflow commands: `%`, CR and LF as `%25`, `%0D`, `%0A`), before the command runs.
    private func announce(_ secrets: [(variable: String, value: [UInt8])]) {
        var lines: [UInt8] = []
        for (_, value) in secrets where value.count >= OutputMask.minimumLength {
            var forms = OutputMask.forms(of: value)
            defer { for index in forms.indices { wipe(&forms[index]) } }
            for form in forms {
                lines += Array("::add-mask::".utf8)
                for byte in form {
                    switch byte {
                    case UInt8(ascii: "%"): lines += Array("%25".utf8)
                    case 0x0D: lines += Array("%0D".utf8)
                    case 0x0A: lines += Array("%0A".utf8)
                    default: lines.append(byte)
                    }
                }
                lines.append(0x0A)
            }
        }
        try? StandardIO.write(lines, to: 1)
        wipe(&lines)
    }

    /// The exit status for the command's wait status: its own; killed by a signal, vault dies of
    /// the same signal, so that its caller sees what it would have seen without vault (a shell
    /// stops a script whose command died of SIGINT); 128 + N if it survives that signal.
    private static func exitStatus(_ status: Int32?) -> Int32 {
        guard let status else {
            StandardIO.error("exec: how the command ended is unknown (waiting for it failed)")
            return 1
        }
        if status & 0x7F == 0 { return (status >> 8) & 0xFF }
        let number = status & 0x7F
        _ = signal(number, SIG_DFL)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, number)
        _ = pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        _ = raise(number)
        return 128 + number
    }
}
