import CVaultProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide protections for a program that holds secrets in memory.
enum Hygiene {
    // Written once by `apply()` at start-up, before anything else runs, and read only by
    // `restoreForChild()` on the same (main) thread.
    nonisolated(unsafe) private static var coreLimit: rlimit?

    /// Disables core dumps and ptrace attachment by other unprivileged processes, so that a crash
    /// or a curious process cannot copy secrets out of memory.
    ///
    /// Only the soft core-size limit is lowered, so that `vault exec` can give the command it
    /// runs the limit vault was started with (the kernel makes the new image dumpable again).
    static func apply() {
        _ = CVaultProcess_setNotDumpable()
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 else { return }
        coreLimit = limit
        limit.rlim_cur = 0
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    }

    /// Puts back the core-size limit `apply()` lowered, just before `exec` replaces vault.
    static func restoreForChild() {
        guard var limit = coreLimit else { return }
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    }
}
