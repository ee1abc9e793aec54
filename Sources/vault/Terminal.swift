import VaultAge
import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Asks questions on the controlling terminal (`/dev/tty`) with echo off.
///
/// Never asks when there is no terminal or when prompts are not `allowed` (the glue's
/// ``Configuration/allowsPrompts``: `CI` is on): the caller gets `nil` and fails with a message
/// that names the environment variables to set instead.
enum Terminal {
    /// Reads one line without echo (with echo unless `secret`), after printing `message` on the
    /// terminal; nil also when `timeout` seconds pass before the line ends.
    static func ask(
        _ message: String, allowed: Bool, secret: Bool = true, timeout: Double? = nil
    ) throws(VaultError) -> SecureBytes? {
        guard allowed else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        if secret {
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
        }
        // Echo goes off before the prompt appears: a line typed as soon as the prompt shows
        // must be neither echoed nor thrown away by TCSAFLUSH.
        EchoGuard.install(fd: fd, saved: saved)
        _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            EchoGuard.remove()
        }
        try StandardIO.write(message.utf8, to: fd)
        var line = SecureBytes()
        line.reserveCapacity(4096)  // typed secrets fit; a longer line grows, zeroing what it outgrows
        var byte: UInt8 = 0
        let end = timeout.map { Deadline(seconds: $0) }
        while true {
            if let end {
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard case .success(let ready) = valueOrErrno({ poll(&waiting, 1, Int32(end.remainingMilliseconds)) }),
                    ready > 0
                else {
                    try StandardIO.write("\n".utf8, to: fd)
                    return nil
                }
            }
            guard case .success(1) = valueOrErrno({ read(fd, &byte, 1) }), byte != 0x0A else { break }
            line.append(byte)
            if line.count > Vault.maximumValueSize {
                throw VaultError(.usage, "the typed value is larger than 1 MiB")
            }
        }
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    /// The prompt the library uses for passphrases; asks twice when `confirm` is set.
    static func passphrasePrompt(allowed: Bool) -> PassphrasePrompt {
        return { (message: String, confirm: Bool) throws(VaultError) -> SecureBytes? in
            guard let first = try ask(message, allowed: allowed) else { return nil }
            if confirm {
                guard let again = try ask("Repeat the passphrase: ", allowed: allowed) else { return nil }
                guard first == again else {
                    throw VaultError(.cannotUnlock, "the two passphrases differ; nothing was changed")
                }
            }
            return first
        }
    }
}

extension Terminal {
    /// The answers to an age plugin's questions, asked on the terminal: a message is shown, a
    /// PIN is read without echo, a confirmation is a typed choice. Each question gives the person
    /// `timeout` seconds (`VAULT_PROMPT_TIMEOUT`). Without a terminal, or when prompts are not
    /// `allowed` (`CI`), every question is answered nil, which the plugin is told as `fail`.
    static func pluginPrompts(allowed: Bool, timeout: Double) -> PluginPrompts {
        PluginPrompts(
            show: { name, message in
                guard allowed else { return false }
                let fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
                guard fd >= 0 else { return false }
                defer { close(fd) }
                return (try? StandardIO.write("age-plugin-\(name): \(message)\n".utf8, to: fd)) != nil
            },
            ask: { name, message, secret in
                let answer = try? ask(
                    "age-plugin-\(name): \(message): ", allowed: allowed, secret: secret, timeout: timeout)
                return answer ?? nil
            },
            confirm: { name, message, yes, no in
                let choices = no.map { "[y] \(yes) / [n] \($0)" } ?? "[y] \(yes)"
                guard
                    let typed =
                        (try? ask(
                            "age-plugin-\(name): \(message) \(choices): ", allowed: allowed, secret: false,
                            timeout: timeout))
                        ?? nil
                else { return nil }
                let answer = String(decoding: typed.unprotectedArray, as: UTF8.self).lowercased()
                if answer == "y" || answer == yes.lowercased() { return true }
                if no != nil, answer == "n" || answer == no?.lowercased() { return false }
                return nil
            })
    }
}

/// Restores the terminal's echo if the process is interrupted while a prompt has it off.
///
/// The dispositions found are saved and put back when the prompt ends, so that `vault exec`
/// gives its command the ones vault was started with. A signal ignored then (`nohup`, `trap ''`)
/// stays ignored throughout: the prompt must not make a hang-up fatal to vault or its command.
private enum EchoGuard {
    // Written only on the main thread before the handler is installed and read by the handler;
    // the process is single-threaded while a prompt is open.
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var previous: [(signal: Int32, action: sigaction)] = []

    static func install(fd: Int32, saved: termios) {
        EchoGuard.fd = fd
        EchoGuard.saved = saved
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            previous.append((signal, old))
            if isIgnored(old) { continue }
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.__sigaction_handler.sa_handler = { number in
                _ = tcsetattr(EchoGuard.fd, TCSANOW, &EchoGuard.saved)
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
            _ = sigaction(signal, &action, nil)
        }
    }

    static func remove() {
        for (signal, action) in previous {
            var action = action
            _ = sigaction(signal, &action, nil)
        }
        previous = []
        fd = -1
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        // SIG_IGN is the handler address 1; function pointers cannot be compared directly.
        action.sa_flags & SA_SIGINFO == 0
            && unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
                == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
