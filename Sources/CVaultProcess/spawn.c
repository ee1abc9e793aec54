#define _GNU_SOURCE
#include "CVaultProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#define JOIN_SESSION_KEYRING 1 /* KEYCTL_JOIN_SESSION_KEYRING, keyctl(2) */

// Runs in the forked child: only async-signal-safe calls until execve.
static void startChild(
    const char *path, char *const *argv, char *const *envp, int input, int output, int errorOutput, int options,
    pid_t parent, int report) {
    if ((options & CVAULTPROCESS_SPAWN_SAME_GROUP) == 0) (void)setpgid(0, 0);
    if ((options & CVAULTPROCESS_SPAWN_DIE_WITH_PARENT) != 0) {
        // The kernel kills the child when vault's thread ends, even by SIGKILL, which no handler
        // sees; a parent that died before the call is seen by its pid having changed.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) != 0) goto failed;
        if (getppid() != parent) _exit(127);
    }
    // A new, empty session keyring: the child cannot reach a key cached in vault's. Where the
    // kernel refuses key calls (a seccomp filter), nothing can have been cached to reach.
    (void)syscall(SYS_keyctl, JOIN_SESSION_KEYRING, 0UL, 0UL, 0UL, 0UL);
    int null = -1;
    if (input < 0 || errorOutput < 0) null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (dup2(input >= 0 ? input : null, 0) < 0 || dup2(output, 1) < 0
        || dup2(errorOutput >= 0 ? errorOutput : null, 2) < 0)
        goto failed;
    // Every other descriptor closes at execve (the report pipe too, which tells the parent so).
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit limit;
        int highest = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 1048576 ? (int)limit.rlim_cur : 1024;
        for (int fd = 3; fd < highest; fd++)
            if (fd != report) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if ((options & CVAULTPROCESS_SPAWN_SEARCH_PATH) != 0)
        execvpe(path, argv, envp);
    else
        execve(path, argv, envp);
failed:;
    int error = errno;
    while (write(report, &error, sizeof error) < 0 && errno == EINTR) {
    }
    _exit(127);
}

pid_t CVaultProcess_spawnInOwnKeyring(
    const char *path, char *const *argv, char *const *envp, int input, int output, int errorOutput, int options) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) startChild(path, argv, envp, input, output, errorOutput, options, parent, report[1]);
    int forkError = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        errno = forkError;
        return -1;
    }
    // Nothing to read once execve has closed the pipe; an errno when the child could not start.
    int error = 0;
    ssize_t got;
    while ((got = read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (got == (ssize_t)sizeof error) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        errno = error;
        return -1;
    }
    return pid;
}
