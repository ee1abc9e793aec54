import CVaultProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide protections for a program that holds secrets in memory.
enum Hygiene {
    // Written once by `apply()` at start-up, before anything else runs, and read only by
    // `prepareForCommand()` on the same (main) thread.
    nonisolated(unsafe) private static var coreLimit: rlimit?
    // Written by `saveSignalDispositions()` before any library is loaded and read by
    // `prepareForCommand()`, both on the main thread.
    nonisolated(unsafe) private static var dispositions: [(signal: Int32, action: sigaction)] = []
    // Written by `saveInheritedDescriptors()` and read by `prepareForCommand()`, on the main thread.
    nonisolated(unsafe) private static var inherited: [Int32] = []

    /// Disables core dumps and ptrace attachment by other unprivileged processes, so that a crash
    /// or a curious process cannot copy secrets out of memory.
    ///
    /// Only the soft core-size limit is lowered, so that `vault exec` can give the command it
    /// runs the limit vault was started with (the kernel makes the new image dumpable again).
    static func apply() {
        _ = CVaultProcess_setNotDumpable()
        resetChildSignal()
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 else { return }
        coreLimit = limit
        limit.rlim_cur = 0
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    }

    // Written once by `resetChildSignal()` at start-up and read by `prepareForCommand()`, on the
    // main thread.
    nonisolated(unsafe) private static var inheritedChildSignal: sigaction?

    /// Puts SIGCHLD back to its default if vault's caller ignored it (the disposition survives
    /// exec): with SIGCHLD ignored the kernel reaps children itself, and `waitpid` cannot tell
    /// how a refresh command ended. `vault exec` gives its command the caller's disposition.
    private static func resetChildSignal() {
        var action = sigaction()
        guard sigaction(SIGCHLD, nil, &action) == 0 else { return }
        guard isIgnored(action) else { return }
        inheritedChildSignal = action
        _ = signal(SIGCHLD, SIG_DFL)
    }

    /// Records every signal's disposition before a library is loaded, so that `prepareForCommand()`
    /// gives the command `vault exec` runs the ones vault was started with: GLib's D-Bus code
    /// ignores SIGPIPE, and a command started with SIGPIPE ignored keeps writing to closed pipes.
    static func saveSignalDispositions() {
        dispositions = []
        for signal in Int32(1)..<Int32(32) where signal != SIGKILL && signal != SIGSTOP {
            var action = sigaction()
            if sigaction(signal, nil, &action) == 0 { dispositions.append((signal, action)) }
        }
    }

    /// Records the descriptors above 2 that vault was started with (`vault exec -- CMD 3<file`):
    /// they are its caller's, meant for the command; every later one is vault's own.
    static func saveInheritedDescriptors() {
        var found = [Int32](repeating: 0, count: 256)
        var count = CVaultProcess_openDescriptors(3, &found, Int32(found.count))
        if count > Int32(found.count) {
            // More than the first guess: every one of them is the caller's, so list them all.
            found = [Int32](repeating: 0, count: Int(count) + 64)
            count = CVaultProcess_openDescriptors(3, &found, Int32(found.count))
        }
        inherited = count > 0 ? Array(found.prefix(Int(min(count, Int32(found.count))))) : []
    }

    /// Prepares vault for starting `vault exec`'s command: puts back the core-size limit `apply()`
    /// lowered (the command inherits it; vault itself stays non-dumpable), and marks every
    /// descriptor vault opened close-on-exec (libcurl's socketpair and a kept-alive connection to
    /// OpenBao are open without it), keeping those `saveInheritedDescriptors()` recorded. Returns
    /// the signals vault was started with ignored (`saveSignalDispositions()`, and SIGCHLD),
    /// which the command is given ignored; every other one it gets with its default disposition.
    /// vault's own dispositions are left as they are: it keeps waiting for its command.
    static func prepareForCommand() -> [Int32] {
        _ = CVaultProcess_closeOnExecExcept(3, inherited, Int32(inherited.count))
        if var limit = coreLimit { _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) }
        var ignored = dispositions.filter { isIgnored($0.action) }.map(\.signal)
        if let action = inheritedChildSignal, isIgnored(action) { ignored.append(SIGCHLD) }
        return ignored
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        action.sa_flags & SA_SIGINFO == 0
            && unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
                == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
