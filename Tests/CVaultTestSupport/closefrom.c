#define _GNU_SOURCE
#include "CVaultTestSupport.h"

int CVaultTestSupport_addCloseFrom(posix_spawn_file_actions_t *_Nonnull actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
