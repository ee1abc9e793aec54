#ifndef CVAULTPROCESS_H
#define CVAULTPROCESS_H

#include <sys/types.h>

// Process-level calls that Swift cannot make directly: glibc declares prctl(2) as variadic
// (`int prctl(int option, ...)`), and variadic C functions cannot be called from Swift;
// close_range(2)'s flag and execvpe(3) (used by CVaultProcess_startCommand) are GNU extensions
// that glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not define; and
// what runs between fork and exec, or in a signal handler, must be C.

/// Marks the process non-dumpable: no core file, and no ptrace attach by other unprivileged
/// processes. Returns 0 on success, -1 with errno set on failure.
int CVaultProcess_setNotDumpable(void);

/// Writes the open descriptors numbered `lowest` or more, in increasing order, to `out` (at most
/// `capacity` of them; the caller's array). Returns how many are open (which may exceed
/// `capacity`), or -1 with errno set if /proc/self/fd cannot be read.
int CVaultProcess_openDescriptors(int lowest, int *_Nonnull out, int capacity);

/// Marks every descriptor from `lowest` up close-on-exec except the `keptCount` ones in `kept`
/// (increasing order; the caller's array), so that a program vault runs inherits none of
/// vault's own: libcurl opens its socketpair and kept-alive connections without O_CLOEXEC, and
/// a child must not hold vault's connection to a secret server. The kept ones are those vault
/// was started with, which its caller meant for the program. Uses close_range(2) with
/// CLOSE_RANGE_CLOEXEC (Linux 5.11), else walks /proc/self/fd; glibc 2.36's headers declare
/// neither the flag nor the syscall number to Swift. Returns 0, or -1 with errno set.
int CVaultProcess_closeOnExecExcept(int lowest, const int *_Nullable kept, int keptCount);

/// Guards the process group `group` (a refresh command and all it started) against outliving
/// vault: while guarded, SIGHUP, SIGINT or SIGTERM (each only where its disposition was the
/// default, so an ignored one stays ignored) first kills the group with SIGKILL and then ends
/// vault as the signal would have, and so does exit(3). A signal handler must make only
/// async-signal-safe calls and touch only lock-free state, which C11 can promise and Swift
/// cannot; hence C. The handlers are installed on the first call and stay. Returns the slot to
/// pass to CVaultProcess_releaseGroup, or -1 when 64 groups are guarded already (the group is
/// then not guarded). SIGKILL of vault itself cannot be caught: the group then lives on.
int CVaultProcess_guardGroup(pid_t group);

/// Passes SIGTERM and SIGHUP sent to vault on to `child` (the user's command that `vault
/// secret-service run` waits for), until called again with 0, which puts back the handlers that
/// were there. A handler must make only async-signal-safe calls, which C can promise; hence C.
/// Returns 0, or -1 with errno set.
int CVaultProcess_forwardSignals(pid_t child);

/// Stops guarding the group in `slot` (from CVaultProcess_guardGroup; -1 is ignored). Call it
/// once the group's leader is reaped.
void CVaultProcess_releaseGroup(int slot);
// The kernel key retention service (keyrings(7)): glibc has no wrappers for add_key(2) and
// keyctl(2), and syscall(2) is variadic, so Swift cannot call them; libkeyutils is not linked
// (it would become a load-time library of the binary). Each function is one system call and
// returns what it returns: -1 with errno set on failure. Only KernelKeyring.swift calls them.

/// add_key(2) for a key of type "user": creates `description` in `keyring` (a serial number or
/// a KEY_SPEC_* value) with `payload` (the caller's bytes, copied by the kernel), or updates the
/// key of that description already there. Returns the key's serial number.
long CVaultProcess_addUserKey(
    const char *_Nonnull description, const void *_Nonnull payload, unsigned long length, long keyring);

/// keyctl(2) with `operation` and up to four integer arguments (pointers passed as integers by
/// the caller, which owns what they point to).
long CVaultProcess_keyctl(
    int operation, unsigned long argument2, unsigned long argument3, unsigned long argument4, unsigned long argument5);

/// Options of CVaultProcess_spawnInOwnKeyring, or-ed together.
enum {
    /// Stay in the caller's process group (a command run for the user in the foreground, which the
    /// terminal's Ctrl-C must reach) instead of a group of the child's own.
    CVAULTPROCESS_SPAWN_SAME_GROUP = 1,
    /// `path` is a name searched in PATH as execvp(3) does (execvpe), not a path.
    CVAULTPROCESS_SPAWN_SEARCH_PATH = 2,
    /// The kernel kills the child with SIGKILL when the calling thread ends (PR_SET_PDEATHSIG), even
    /// when vault itself is killed with SIGKILL: for a helper such as a private bus that must not
    /// outlive vault. Spawn from the thread that lives as long as the child should.
    CVAULTPROCESS_SPAWN_DIE_WITH_PARENT = 4,
};

/// Starts `path` with `argv` and `envp` (NULL-terminated; the caller owns them) in a process group
/// of its own (unless `options` say otherwise) and a new, empty session keyring, with `input`,
/// `output` and `errorOutput` as its descriptors 0, 1 and 2 (-1 for input or errorOutput:
/// /dev/null; 0, 1 and 2 keep the caller's) and no other descriptor. posix_spawn cannot make the
/// child join a keyring, so the child is forked here and makes only async-signal-safe calls before
/// execve. Returns the child's pid, or -1 with errno set, also when execve failed (the child reports
/// its errno through a close-on-exec pipe and is reaped here).
pid_t CVaultProcess_spawnInOwnKeyring(
    const char *_Nonnull path, char *_Nullable const *_Nonnull argv, char *_Nullable const *_Nonnull envp, int input,
    int output, int errorOutput, int options);

/// Starts `vault exec`'s command: `file` searched in PATH as execvp(3) does, with `argv` and `envp`
/// (NULL-terminated; the caller owns them), in vault's process group (so that it stays in the
/// terminal's foreground and can read it) and a new, empty session keyring. Its standard input is
/// vault's; its standard output and error are `output` and `errorOutput`, or vault's for -1; it
/// has every descriptor of vault's not marked close-on-exec (the caller marks those of its own:
/// the ones vault was started with are meant for the command). Every signal in `ignored`
/// (`ignoredCount` of them) is ignored in it, every other one has its default disposition. Each signal of `forwarded`
/// (`forwardedCount` of them) that is not in `ignored` is from now on passed on to the command
/// when sent to vault by a process (not by the kernel to the whole group, as the terminal does).
/// A thread of vault's, started before the fork, waits for the command and writes its wait
/// status (an int; -1 if waitpid failed) to `statusReport`, which it then closes: the caller
/// gives that descriptor away, on every path. While the thread waits vault has two threads, and
/// the kernel refuses the command's KEYCTL_SESSION_TO_PARENT. Returns the command's pid, or -1
/// with errno set, also when execvpe failed (the child reports its errno through a close-on-exec
/// pipe and is reaped here).
pid_t CVaultProcess_startCommand(
    const char *_Nonnull file, char *_Nullable const *_Nonnull argv, char *_Nullable const *_Nonnull envp, int output,
    int errorOutput, const int *_Nonnull ignored, int ignoredCount, const int *_Nonnull forwarded, int forwardedCount,
    int statusReport);

#endif
