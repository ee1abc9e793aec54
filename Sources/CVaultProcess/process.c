#include "CVaultProcess.h"

#include <sys/prctl.h>

int CVaultProcess_setNotDumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
