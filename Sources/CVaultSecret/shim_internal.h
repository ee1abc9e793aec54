// Private to the shim: what its C files share. Not visible to Swift.
#ifndef CVAULTSECRET_SHIM_INTERNAL_H
#define CVAULTSECRET_SHIM_INTERNAL_H

#include "CVaultLoader.h"
#include "CVaultSecret.h"
#include "gcrypt_abi.h"
#include "glib_abi.h"

#define CVAULTSECRET_INTERNAL __attribute__((visibility("hidden")))

// The loaded library's functions (CVaultSecret.c fills the table in CVaultSecret_Load): one
// pointer per entry of both lists, named after the function.
#define CVAULTSECRET_ALL_FUNCTIONS(X) CVAULTSECRET_FUNCTIONS(X) CVAULTSECRET_GCRYPT_FUNCTIONS(X)
// The copied prototypes say nothing of nullability, as the real ones do not.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
typedef struct CVaultSecret_Functions {
    CVAULTSECRET_ALL_FUNCTIONS(CVAULTLOADER_FIELD)
} CVaultSecret_Functions;
#pragma clang diagnostic pop
CVAULTSECRET_INTERNAL extern CVaultSecret_Functions CVaultSecret_fn;

// Every blocking wrapper passes its GError** straight through to GLib.
#define GERROR_OUT(error) ((CVaultSecret_GErrorLayout **)(void *)(error))

// The domain of the errors the session makes itself (Session.c): the provider's key is invalid,
// no key could be agreed. Swift reads them as a broken session, for which a fresh one may work.
#define CVAULTSECRET_SESSION_ERROR_DOMAIN "vault-secret-session-error"

// Calls `method` through the shared connection with `flags` (CVAULTSECRET_G_DBUS_CALL_FLAGS_*):
// the reply (released with g_variant_unref), or NULL with *error set, or unset when not
// connected (CVaultSecret_SessionBusConnect). `arguments`, a floating tuple, is consumed.
CVAULTSECRET_INTERNAL struct CVaultSecret_GVariant *_Nullable CVaultSecret_BusCall(
    const char *_Nonnull destination, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull method, struct CVaultSecret_GVariant *_Nonnull arguments, unsigned int flags,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);

// The attributes as an a{ss} variant (floating).
CVAULTSECRET_INTERNAL struct CVaultSecret_GVariant *_Nonnull CVaultSecret_AttributesVariant(
    CVaultSecret_Attributes *_Nonnull attributes);

// Drops libsecret's shared service (secret_service_disconnect).
CVAULTSECRET_INTERNAL void CVaultSecret_ServiceReset(void);

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
