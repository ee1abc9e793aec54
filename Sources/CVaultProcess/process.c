#define _GNU_SOURCE
#include "CVaultProcess.h"

#include <sys/prctl.h>
#include <unistd.h>

int CVaultProcess_setNotDumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int CVaultProcess_execvpe(const char *file, char *const *argv, char *const *envp) {
    return execvpe(file, argv, envp);
}

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int CVaultProcess_closeOnExecFrom(int lowest) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lowest, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
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
        if (fd < lowest || fd == own) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0) (void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    closedir(dir);
    return 0;
}

int CVaultProcess_addCloseFrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
