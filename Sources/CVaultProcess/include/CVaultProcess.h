#ifndef CVAULTPROCESS_H
#define CVAULTPROCESS_H

// Process-level calls that Swift cannot make directly: glibc declares prctl(2) as variadic
// (`int prctl(int option, ...)`), and variadic C functions cannot be called from Swift.

/// Marks the process non-dumpable: no core file, and no ptrace attach by other unprivileged
/// processes. Returns 0 on success, -1 with errno set on failure.
int CVaultProcess_setNotDumpable(void);

#endif
