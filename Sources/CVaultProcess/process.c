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
