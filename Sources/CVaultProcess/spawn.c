#define _GNU_SOURCE
#include "CVaultProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#define JOIN_SESSION_KEYRING 1 /* KEYCTL_JOIN_SESSION_KEYRING, keyctl(2) */
#define INHERIT (-2) /* a descriptor the child keeps as vault has it */

// How one child starts: filled by the two public functions, read by the forked child.
struct start {
    const char *path;
    char *const *argv;
    char *const *envp;
    int input, output, errorOutput;  // a descriptor, -1 for /dev/null, INHERIT to keep vault's
    int ownGroup;  // a process group of its own, else vault's
    int searchPath;  // execvpe (PATH searched), else execve
    const sigset_t *ignored;  // dispositions to give (others default), NULL to leave them
    int closeOthers;  // mark every descriptor from 3 up close-on-exec in the child
    int dieWithParent;  // killed by the kernel when vault's spawning thread ends (PR_SET_PDEATHSIG)
    pid_t parent;  // vault's pid, to see whether it died before PR_SET_PDEATHSIG took hold
};

// dup2 that leaves an inherited descriptor alone; -1 is /dev/null.
static int place(int fd, int target, int null) {
    if (fd == INHERIT) return 0;
    return dup2(fd >= 0 ? fd : null, target) < 0 ? -1 : 0;
}

// Runs in the forked child: only async-signal-safe calls until execve.
static void startChild(const struct start *start, int report, const sigset_t *mask) {
    if (start->ownGroup) (void)setpgid(0, 0);
    if (start->dieWithParent) {
        // The kernel kills the child when vault's thread ends, even by SIGKILL, which no handler
        // sees; a parent that died before the call is seen by its pid having changed.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL) != 0) goto failed;
        if (getppid() != start->parent) _exit(127);
    }
    if (start->ignored != NULL) {
        // vault's handlers would be reset at exec anyway; an ignored disposition would not.
        for (int number = 1; number < NSIG; number++) {
            if (number == SIGKILL || number == SIGSTOP) continue;
            struct sigaction action = {0};
            action.sa_handler = sigismember(start->ignored, number) == 1 ? SIG_IGN : SIG_DFL;
            sigemptyset(&action.sa_mask);
            (void)sigaction(number, &action, NULL);
        }
    }
    (void)sigprocmask(SIG_SETMASK, mask, NULL);
    // A new, empty session keyring: the child cannot reach a key cached in vault's. Where the
    // kernel refuses key calls (a seccomp filter), nothing can have been cached to reach.
    (void)syscall(SYS_keyctl, JOIN_SESSION_KEYRING, 0UL, 0UL, 0UL, 0UL);
    int null = -1;
    if (start->input == -1 || start->output == -1 || start->errorOutput == -1)
        null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (place(start->input, 0, null) < 0 || place(start->output, 1, null) < 0 || place(start->errorOutput, 2, null) < 0)
        goto failed;
    // Every other descriptor closes at execve (the report pipe too, which tells the parent so).
    if (start->closeOthers && syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit limit;
        int highest = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 1048576 ? (int)limit.rlim_cur : 1024;
        for (int fd = 3; fd < highest; fd++)
            if (fd != report) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if (start->searchPath)
        execvpe(start->path, start->argv, start->envp);
    else
        execve(start->path, start->argv, start->envp);
failed:;
    int error = errno;
    while (write(report, &error, sizeof error) < 0 && errno == EINTR) {
    }
    _exit(127);
}

// Forks the child with every signal blocked, so that no handler of vault's runs in the child
// before its dispositions are set, and one that arrives meanwhile waits for vault's handler;
// `started` runs in vault before the signals are unblocked, with the child's pid (-1: none).
static pid_t spawn(struct start *start, void (*started)(pid_t)) {
    start->parent = getpid();
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    sigset_t all, previous;
    sigfillset(&all);
    (void)pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t pid = fork();
    if (pid == 0) startChild(start, report[1], &previous);
    int forkError = errno;
    if (started != NULL) started(pid);
    (void)pthread_sigmask(SIG_SETMASK, &previous, NULL);
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

pid_t CVaultProcess_spawnInOwnKeyring(
    const char *path, char *const *argv, char *const *envp, int input, int output, int errorOutput, int options) {
    struct start start = {
        .path = path,
        .argv = argv,
        .envp = envp,
        .input = input,
        .output = output,
        .errorOutput = errorOutput,
        .ownGroup = (options & CVAULTPROCESS_SPAWN_SAME_GROUP) == 0,
        .searchPath = (options & CVAULTPROCESS_SPAWN_SEARCH_PATH) != 0,
        .ignored = NULL,
        .closeOthers = 1,
        .dieWithParent = (options & CVAULTPROCESS_SPAWN_DIE_WITH_PARENT) != 0,
    };
    return spawn(&start, NULL);
}

// --- vault exec's command -----------------------------------------------------------------

// The command signals are passed on to; 0 before it starts. Read by a signal handler, so a
// lock-free atomic: C11 says what a handler may touch, Swift does not.
static _Atomic pid_t forwardTo;

// Async-signal-safe: an atomic load and kill(2). The terminal's signals (SIGINT from Ctrl-C,
// SIGWINCH, SIGHUP at hang-up) come from the kernel to the whole foreground process group,
// which the command is in: passed on, they would reach it twice.
static void forward(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    pid_t child = atomic_load(&forwardTo);
    if (child > 0 && info->si_code != SI_KERNEL) (void)kill(child, number);
    errno = saved;
}

// The waiter thread's end of the pid pipe and the caller's status report.
struct waiter {
    int pidPipe, statusReport;
};
static struct waiter waiterArguments;

// Waits for the command and reports its wait status (an int; -1 when waitpid failed), then
// closes the report. Blocking in waitpid keeps a second thread in vault for the command's whole
// life, and the kernel refuses KEYCTL_SESSION_TO_PARENT to a child of a multi-threaded process.
static void *waitForCommand(void *argument) {
    const struct waiter *waiter = argument;
    pid_t pid = -1;
    while (read(waiter->pidPipe, &pid, sizeof pid) < 0 && errno == EINTR) {
    }
    close(waiter->pidPipe);
    if (pid > 0) {
        int status = 0;
        pid_t found;
        while ((found = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
        if (found != pid) status = -1;
        while (write(waiter->statusReport, &status, sizeof status) < 0 && errno == EINTR) {
        }
    }
    close(waiter->statusReport);
    return NULL;
}

// Runs in vault with every signal blocked, right after the fork: a signal that came meanwhile
// is passed on once they are unblocked.
static void commandStarted(pid_t pid) {
    if (pid > 0) atomic_store(&forwardTo, pid);
}

pid_t CVaultProcess_startCommand(
    const char *file, char *const *argv, char *const *envp, int output, int errorOutput, const int *ignoredList,
    int ignoredCount, const int *forwarded, int forwardedCount, int statusReport) {
    static sigset_t ignored;  // read by the forked child; vault exec starts one command
    sigemptyset(&ignored);
    for (int i = 0; i < ignoredCount; i++) sigaddset(&ignored, ignoredList[i]);
    int pids[2];
    if (pipe2(pids, O_CLOEXEC) != 0) return -1;
    waiterArguments = (struct waiter){pids[0], statusReport};
    pthread_t thread;
    int failed = pthread_create(&thread, NULL, waitForCommand, &waiterArguments);
    if (failed != 0) {
        close(pids[0]);
        close(pids[1]);
        close(statusReport);
        errno = failed;
        return -1;
    }
    (void)pthread_detach(thread);
    for (int i = 0; i < forwardedCount; i++) {
        // One the caller ignored stays ignored, in vault and in the command.
        if (sigismember(&ignored, forwarded[i]) == 1) continue;
        struct sigaction action = {0};
        action.sa_sigaction = forward;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        (void)sigaction(forwarded[i], &action, NULL);
    }
    struct start start = {
        .path = file,
        .argv = argv,
        .envp = envp,
        .input = INHERIT,
        .output = output < 0 ? INHERIT : output,
        .errorOutput = errorOutput < 0 ? INHERIT : errorOutput,
        .ownGroup = 0,
        .searchPath = 1,
        .ignored = &ignored,
        .closeOthers = 0,
        .dieWithParent = 0,
    };
    pid_t pid = spawn(&start, commandStarted);
    int spawnError = errno;
    // The waiter learns the pid only once the command runs: one that could not start was reaped.
    while (write(pids[1], &pid, sizeof pid) < 0 && errno == EINTR) {
    }
    close(pids[1]);
    errno = spawnError;
    return pid;
}
