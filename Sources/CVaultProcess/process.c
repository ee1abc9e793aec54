#define _GNU_SOURCE
#include "CVaultProcess.h"

#include <sys/prctl.h>
#include <unistd.h>

int CVaultProcess_setNotDumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int CVaultProcess_openDescriptors(int lowest, int *out, int capacity) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -1;
    int own = dirfd(dir), count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < lowest || fd == own) continue;
        // Sorted insertion: /proc lists in order, but nothing promises it.
        if (count < capacity) {
            int at = count;
            while (at > 0 && out[at - 1] > fd) {
                out[at] = out[at - 1];
                at--;
            }
            out[at] = fd;
        }
        count++;
    }
    closedir(dir);
    return count;
}

static int isKept(int fd, const int *kept, int keptCount) {
    for (int i = 0; i < keptCount; i++)
        if (kept[i] == fd) return 1;
    return 0;
}

int CVaultProcess_closeOnExecExcept(int lowest, const int *kept, int keptCount) {
#ifdef SYS_close_range
    // The ranges between the kept descriptors, then everything above the last.
    unsigned from = (unsigned)lowest;
    int failed = 0;
    for (int i = 0; i <= keptCount && !failed; i++) {
        unsigned to = i < keptCount ? (unsigned)kept[i] : 0U;
        if (i < keptCount && to < from) continue;
        if (i < keptCount && to == from) {
            from = to + 1;
            continue;
        }
        if (syscall(SYS_close_range, from, i < keptCount ? to - 1 : ~0U, CLOSE_RANGE_CLOEXEC) != 0) failed = 1;
        if (i < keptCount) from = to + 1;
    }
    if (!failed) return 0;
    if (errno != ENOSYS && errno != EINVAL) return -1;
#endif
    // Older kernels: every open descriptor is listed in /proc/self/fd.
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -1;
    int own = dirfd(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < lowest || fd == own || isKept(fd, kept, keptCount)) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0) (void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    closedir(dir);
    return 0;
}
