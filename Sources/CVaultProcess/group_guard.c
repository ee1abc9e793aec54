#include "CVaultProcess.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

// The process groups of the refresh commands running now; 0 marks a free slot. A signal handler
// reads them, so they are lock-free atomics: C11 says what a handler may touch, Swift does not.
#define CVAULTPROCESS_GUARD_SLOTS 64
static _Atomic pid_t guarded[CVAULTPROCESS_GUARD_SLOTS];
static pthread_once_t installed = PTHREAD_ONCE_INIT;

// Async-signal-safe: atomic loads and kill(2) only.
static void end_guarded_groups(void) {
    for (int slot = 0; slot < CVAULTPROCESS_GUARD_SLOTS; slot++) {
        pid_t group = atomic_load(&guarded[slot]);
        if (group > 0) kill(-group, SIGKILL);
    }
}

// Ends the groups, then lets the signal do what it would have done: end vault.
static void on_fatal_signal(int number) {
    int saved = errno;
    end_guarded_groups();
    signal(number, SIG_DFL);
    raise(number);  // blocked until the handler returns, then fatal
    errno = saved;
}

static void install_handlers(void) {
    const int fatal[] = {SIGHUP, SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal[i], NULL, &old) != 0) continue;
        // Only where the signal would end vault: one its caller ignores (nohup) stays ignored,
        // and a handler someone else installed is theirs.
        if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction action = {0};
        action.sa_handler = on_fatal_signal;
        sigemptyset(&action.sa_mask);
        sigaction(fatal[i], &action, NULL);
    }
    atexit(end_guarded_groups);
}

int CVaultProcess_guardGroup(pid_t group) {
    pthread_once(&installed, install_handlers);
    for (int slot = 0; slot < CVAULTPROCESS_GUARD_SLOTS; slot++) {
        pid_t empty = 0;
        if (atomic_compare_exchange_strong(&guarded[slot], &empty, group)) return slot;
    }
    return -1;
}

void CVaultProcess_releaseGroup(int slot) {
    if (slot >= 0 && slot < CVAULTPROCESS_GUARD_SLOTS) atomic_store(&guarded[slot], 0);
}

// The user's command `vault secret-service run` waits for: SIGTERM and SIGHUP to vault go on to it
// (as PID 1 in a container, `docker stop`'s SIGTERM would otherwise end nothing: the kernel does
// not apply a default action to PID 1). A handler reads it, so it is a lock-free atomic.
static _Atomic pid_t forwarded_to = 0;
static const int forwarded_signals[] = {SIGHUP, SIGTERM};
static struct sigaction forwarded_saved[sizeof forwarded_signals / sizeof forwarded_signals[0]];

// Async-signal-safe: an atomic load and kill(2).
static void forward_signal(int number) {
    int saved = errno;
    pid_t child = atomic_load(&forwarded_to);
    if (child > 0) kill(child, number);
    errno = saved;
}

int CVaultProcess_forwardSignals(pid_t child) {
    const size_t count = sizeof forwarded_signals / sizeof forwarded_signals[0];
    if (child <= 0) {
        atomic_store(&forwarded_to, 0);
        for (size_t i = 0; i < count; i++) sigaction(forwarded_signals[i], &forwarded_saved[i], NULL);
        return 0;
    }
    atomic_store(&forwarded_to, child);
    for (size_t i = 0; i < count; i++) {
        struct sigaction action = {0};
        action.sa_handler = forward_signal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(forwarded_signals[i], &action, &forwarded_saved[i]) != 0) return -1;
    }
    return 0;
}
