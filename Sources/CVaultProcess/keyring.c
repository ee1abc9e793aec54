#include "CVaultProcess.h"

#include <sys/syscall.h>
#include <unistd.h>

long CVaultProcess_addUserKey(const char *description, const void *payload, unsigned long length, long keyring) {
    return syscall(SYS_add_key, "user", description, payload, (size_t)length, (int)keyring);
}

long CVaultProcess_keyctl(
    int operation, unsigned long argument2, unsigned long argument3, unsigned long argument4, unsigned long argument5) {
    return syscall(SYS_keyctl, operation, argument2, argument3, argument4, argument5);
}
