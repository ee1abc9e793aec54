#ifndef CVAULTPROCESS_H
#define CVAULTPROCESS_H

// Process-level calls that Swift cannot make directly: glibc declares prctl(2) as variadic
// (`int prctl(int option, ...)`), and variadic C functions cannot be called from Swift;
// execvpe(3) is a GNU extension that glibc declares only under _GNU_SOURCE, which Swift's
// Glibc module does not define.

/// Marks the process non-dumpable: no core file, and no ptrace attach by other unprivileged
/// processes. Returns 0 on success, -1 with errno set on failure.
int CVaultProcess_setNotDumpable(void);

/// execvpe(3): replaces the process image with `file`, searched in PATH like execvp(3) (the
/// PATH of the calling process, not of `envp`), with the environment `envp`. `argv` and `envp`
/// are NULL-terminated arrays owned by the caller. Returns only on failure: -1 with errno set.
int CVaultProcess_execvpe(
    const char *_Nonnull file, char *_Nullable const *_Nonnull argv, char *_Nullable const *_Nonnull envp);

#endif
