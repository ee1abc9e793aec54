#if canImport(Glibc)
    import Glibc
#endif
import CVaultProcess

/// Process-wide protections for a program that holds secrets in memory.
enum Hygiene {
    /// Disables core dumps and ptrace attachment by other unprivileged processes, so that a crash
    /// or a curious process cannot copy secrets out of memory.
    static func apply() {
        _ = CVaultProcess_setNotDumpable()
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    }
}
