// Private to the shim: what its two C files share. Not visible to Swift.
#ifndef CVAULTSECRET_SHIM_INTERNAL_H
#define CVAULTSECRET_SHIM_INTERNAL_H

#include "CVaultSecret.h"
#include "glib_abi.h"

#define CVAULTSECRET_INTERNAL __attribute__((visibility("hidden")))

// The deadline's GCancellable, owned by the deadline (Deadline.c).
CVAULTSECRET_INTERNAL struct CVaultSecret_GCancellable *_Nonnull CVaultSecret_DeadlineCancellable(
    CVaultSecret_Deadline *_Nonnull deadline);

// GLib's GCancellable through the loaded library (CVaultSecret.c). New returns a reference
// that the caller releases with Unref; Cancel may be called from any thread.
CVAULTSECRET_INTERNAL struct CVaultSecret_GCancellable *_Nonnull CVaultSecret_CancellableNew(void);
CVAULTSECRET_INTERNAL void CVaultSecret_CancellableCancel(
    struct CVaultSecret_GCancellable *_Nonnull cancellable);
CVAULTSECRET_INTERNAL void CVaultSecret_CancellableUnref(
    struct CVaultSecret_GCancellable *_Nonnull cancellable);

#endif
