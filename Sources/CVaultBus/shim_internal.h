// Private to the shim: what its C files share. Not visible to Swift.
#ifndef CVAULTBUS_SHIM_INTERNAL_H
#define CVAULTBUS_SHIM_INTERNAL_H

#include "CVaultLoader.h"
#include "gio_abi.h"

// The loaded library's functions (Server.c fills the table in CVaultBus_Load): one pointer per
// entry of the list, named after the function. The copied prototypes say nothing of nullability,
// as the real ones do not.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
CVAULTLOADER_TABLE(CVaultBus_Functions, CVAULTBUS_FUNCTIONS);
#pragma clang diagnostic pop
__attribute__((visibility("hidden"))) extern CVaultBus_Functions CVaultBus_fn;
#define fn CVaultBus_fn

#endif
