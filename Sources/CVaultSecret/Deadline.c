// A deadline for blocking libsecret calls.
//
// libsecret's *_sync functions take a GCancellable but no timeout, and the D-Bus default
// timeout (25 s) covers only single method calls, not connecting to the bus or a prompt.
// So each store operation gets a GCancellable and a watchdog thread that cancels it when
// the time is up. GLib's cancellation is thread-safe and every call below it (connecting,
// D-Bus method calls, waiting on a prompt) returns G_IO_ERROR_CANCELLED promptly, so no
// call can outlive the deadline by more than the time to unwind. The thread lives only as
// long as the operation: CVaultSecret_DeadlineFinish wakes and joins it.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "shim_internal.h"

struct CVaultSecret_Deadline {
    pthread_mutex_t lock;
    pthread_cond_t wake;  // signalled by Finish
    struct timespec until;  // CLOCK_MONOTONIC
    bool finished;  // guarded by lock
    bool fired;  // guarded by lock
    struct CVaultSecret_GCancellable *_Nonnull cancellable;  // owned
    pthread_t thread;
};

static void *_Nullable watch(void *_Nullable argument) {
    CVaultSecret_Deadline *deadline = argument;
    pthread_mutex_lock(&deadline->lock);
    while (!deadline->finished && !deadline->fired) {
        if (pthread_cond_timedwait(&deadline->wake, &deadline->lock, &deadline->until) == ETIMEDOUT
            && !deadline->finished) {
            deadline->fired = true;
        }
    }
    bool fire = deadline->fired;
    pthread_mutex_unlock(&deadline->lock);
    // Outside the lock: cancelling runs GLib's cancellation handlers on this thread.
    if (fire) CVaultSecret_CancellableCancel(deadline->cancellable);
    return NULL;
}

CVaultSecret_Deadline *_Nullable CVaultSecret_DeadlineStart(double seconds) {
    if (!(seconds > 0)) seconds = 0;  // NaN and negatives: already expired
    if (seconds > 1e9) seconds = 1e9;  // keep tv_sec in range
    CVaultSecret_Deadline *deadline = calloc(1, sizeof *deadline);
    if (deadline == NULL) return NULL;
    clock_gettime(CLOCK_MONOTONIC, &deadline->until);
    time_t whole = (time_t)seconds;  // seconds >= 0: truncation is floor
    deadline->until.tv_sec += whole;
    deadline->until.tv_nsec += (long)((seconds - (double)whole) * 1e9);
    if (deadline->until.tv_nsec >= 1000000000L) {
        deadline->until.tv_sec += 1;
        deadline->until.tv_nsec -= 1000000000L;
    }

    pthread_condattr_t condition;
    pthread_condattr_init(&condition);
    pthread_condattr_setclock(&condition, CLOCK_MONOTONIC);
    pthread_cond_init(&deadline->wake, &condition);
    pthread_condattr_destroy(&condition);
    pthread_mutex_init(&deadline->lock, NULL);
    deadline->cancellable = CVaultSecret_CancellableNew();

    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    int status = pthread_create(&deadline->thread, &attributes, watch, deadline);
    pthread_attr_destroy(&attributes);
    if (status != 0) {
        CVaultSecret_CancellableUnref(deadline->cancellable);
        pthread_cond_destroy(&deadline->wake);
        pthread_mutex_destroy(&deadline->lock);
        free(deadline);
        errno = status;
        return NULL;
    }
    return deadline;
}

struct CVaultSecret_GCancellable *_Nonnull CVaultSecret_DeadlineCancellable(CVaultSecret_Deadline *_Nonnull deadline) {
    return deadline->cancellable;
}

bool CVaultSecret_DeadlineExpired(CVaultSecret_Deadline *_Nonnull deadline) {
    pthread_mutex_lock(&deadline->lock);
    bool fired = deadline->fired;
    pthread_mutex_unlock(&deadline->lock);
    return fired;
}

bool CVaultSecret_DeadlineFinish(CVaultSecret_Deadline *_Nonnull deadline) {
    pthread_mutex_lock(&deadline->lock);
    deadline->finished = true;
    pthread_cond_signal(&deadline->wake);
    pthread_mutex_unlock(&deadline->lock);
    pthread_join(deadline->thread, NULL);
    bool fired = deadline->fired;
    CVaultSecret_CancellableUnref(deadline->cancellable);
    pthread_cond_destroy(&deadline->wake);
    pthread_mutex_destroy(&deadline->lock);
    free(deadline);
    return fired;
}
