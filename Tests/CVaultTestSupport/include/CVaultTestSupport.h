#ifndef CVAULTTESTSUPPORT_H
#define CVAULTTESTSUPPORT_H

#include <spawn.h>

// glibc declares posix_spawn_file_actions_addclosefrom_np(3) only under _GNU_SOURCE, which
// Swift's Glibc module does not define; the tests need it so that children inherit no
// descriptor of the test process.

/// Adds "close every descriptor from `from` up" to `actions`. Returns 0 or an error number.
int CVaultTestSupport_addCloseFrom(posix_spawn_file_actions_t *_Nonnull actions, int from);

#endif
