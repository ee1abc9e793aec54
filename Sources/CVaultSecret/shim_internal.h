// Private to the shim: what its C files share. Not visible to Swift.
#ifndef CVAULTSECRET_SHIM_INTERNAL_H
#define CVAULTSECRET_SHIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "CVaultLoader.h"
#include "CVaultSecret.h"
#include "gcrypt_abi.h"
#include "glib_abi.h"

#define CVAULTSECRET_INTERNAL __attribute__((visibility("hidden")))

// The loaded library's functions (Load.c fills the tables in CVaultSecret_Load): one
// pointer per entry of each list, named after the function. libsecret's and GLib's are required;
// libgcrypt's, which only vault's own key agreement uses (KeyAgreement.c), are optional: a
// libsecret built without libgcrypt does not bring it, and then the session is "plain"
// (Session.c), as libsecret's own session is in such a build.
// The copied prototypes say nothing of nullability, as the real ones do not.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
CVAULTLOADER_TABLE(CVaultSecret_Functions, CVAULTSECRET_FUNCTIONS);
CVAULTLOADER_TABLE(CVaultSecret_GcryptFunctions, CVAULTSECRET_GCRYPT_FUNCTIONS);
#pragma clang diagnostic pop
CVAULTSECRET_INTERNAL extern CVaultSecret_Functions CVaultSecret_fn;
// Complete when CVaultSecret_HasGcrypt is true; never called otherwise.
CVAULTSECRET_INTERNAL extern CVaultSecret_GcryptFunctions CVaultSecret_gcry;
CVAULTSECRET_INTERNAL extern bool CVaultSecret_HasGcrypt;

// Every blocking wrapper passes its GError** straight through to GLib.
#define GERROR_OUT(error) ((CVaultSecret_GErrorLayout **)(void *)(error))

// The deadline's GCancellable, for GLib's and libsecret's blocking calls.
#define CANCELLABLE(deadline) CVaultSecret_DeadlineCancellable(deadline)

// The Secret Service's bus name, service object and interfaces (the freedesktop.org spec), and
// the standard properties interface.
#define CVAULTSECRET_SECRETS "org.freedesktop.secrets"
#define CVAULTSECRET_SECRETS_PATH "/org/freedesktop/secrets"
#define CVAULTSECRET_SERVICE_INTERFACE "org.freedesktop.Secret.Service"
#define CVAULTSECRET_COLLECTION_INTERFACE "org.freedesktop.Secret.Collection"
#define CVAULTSECRET_ITEM_INTERFACE "org.freedesktop.Secret.Item"
#define CVAULTSECRET_SESSION_INTERFACE "org.freedesktop.Secret.Session"
#define CVAULTSECRET_PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

// The domain of the errors the session makes itself (Session.c): the provider's key is invalid,
// no key could be agreed. Swift reads them as a broken session, for which a fresh one may work.
#define CVAULTSECRET_SESSION_ERROR_DOMAIN "vault-secret-session-error"

// A GVariant type string ("(vo)") as the GVariantType GLib's functions take.
#define CVAULTSECRET_TYPE(string) ((const struct CVaultSecret_GVariantType *)(string))

// Calls `method` through the shared connection with `flags` (CVAULTSECRET_G_DBUS_CALL_FLAGS_*):
// the reply (released with g_variant_unref), or NULL with *error set, or unset when not
// connected (CVaultSecret_SessionBusConnect). `arguments`, a floating tuple, is consumed.
// GLib checks the reply against `reply_type` (the method's out-signature as a tuple) before it is
// returned: a reply of another shape is an error (G_IO_ERROR_INVALID_ARGUMENT), so no caller reads
// a child that is not there or not of its type.
CVAULTSECRET_INTERNAL struct CVaultSecret_GVariant *_Nullable CVaultSecret_BusCall(
    const char *_Nonnull destination, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull method, struct CVaultSecret_GVariant *_Nonnull arguments, const char *_Nonnull reply_type,
    unsigned int flags, CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);

// CVaultSecret_BusCall for calls that must never start a service (Bus.c).
CVAULTSECRET_INTERNAL struct CVaultSecret_GVariant *_Nullable CVaultSecret_BusCallNoStart(
    const char *_Nonnull destination, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull method, struct CVaultSecret_GVariant *_Nonnull arguments, const char *_Nonnull reply_type,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);

// A malloc'd NULL-terminated array with room for `count` strings, all NULL, filled by the caller
// (Paths.c). Aborts when memory is exhausted, as GLib does.
CVAULTSECRET_INTERNAL char *_Nullable *_Nonnull CVaultSecret_NewStrings(size_t count);

// `length` bytes copied into memory of their own, one byte at least so that nothing empty is NULL
// (Session.c). Aborts when memory is exhausted.
CVAULTSECRET_INTERNAL uint8_t *_Nonnull CVaultSecret_CopyBytes(const void *_Nullable bytes, size_t length);

// The attributes as an a{ss} variant (floating) (Paths.c).
CVAULTSECRET_INTERNAL struct CVaultSecret_GVariant *_Nonnull CVaultSecret_AttributesVariant(
    CVaultSecret_Attributes *_Nonnull attributes);

// MARK: The key agreement (KeyAgreement.c)

// The session's key pair: the private exponent (a libgcrypt number, wiped as it is released) and
// the public value, CVAULTSECRET_GROUP_BYTES big-endian bytes with a first byte other than zero.
typedef struct CVaultSecret_KeyPair {
    CVAULTSECRET_T_gcry_mpi_t _Nullable exponent;
    uint8_t public_value[CVAULTSECRET_GROUP_BYTES];
} CVaultSecret_KeyPair;

// How often a key pair, or a session's agreement, is drawn again for an encoding that would be
// ambiguous (a public value or shared secret whose first byte is zero, 1 in 256) before giving up.
enum { CVAULTSECRET_KEY_PAIR_ATTEMPTS = 8 };

typedef enum {
    CVAULTSECRET_AGREEMENT_AGREED,
    CVAULTSECRET_AGREEMENT_INVALID_PEER,  // the provider's public value is not in 2..p-2
    CVAULTSECRET_AGREEMENT_AMBIGUOUS,  // the shared secret starts with a zero byte: draw again
    CVAULTSECRET_AGREEMENT_FAILED,
} CVaultSecret_Agreement;

// libgcrypt's initialization, once per process. Call before the functions below.
CVAULTSECRET_INTERNAL void CVaultSecret_InitializeGcrypt(void);
// A new key pair; false (and nothing to release) if none could be made.
CVAULTSECRET_INTERNAL bool CVaultSecret_KeyPairMake(CVaultSecret_KeyPair *_Nonnull pair);
CVAULTSECRET_INTERNAL void CVaultSecret_KeyPairRelease(CVaultSecret_KeyPair *_Nonnull pair);
// The shared secret with the provider's public value `peer` (`length` big-endian bytes), written
// to `shared` when AGREED (and wiped otherwise).
CVAULTSECRET_INTERNAL CVaultSecret_Agreement CVaultSecret_KeyAgree(
    const CVaultSecret_KeyPair *_Nonnull pair, const uint8_t *_Nonnull peer, size_t length,
    uint8_t shared[_Nonnull CVAULTSECRET_GROUP_BYTES]);

// Drops libsecret's shared service (secret_service_disconnect) (Proxies.c).
CVAULTSECRET_INTERNAL void CVaultSecret_ServiceReset(void);

// The deadline's GCancellable, owned by the deadline (Deadline.c).
CVAULTSECRET_INTERNAL struct CVaultSecret_GCancellable *_Nonnull CVaultSecret_DeadlineCancellable(
    CVaultSecret_Deadline *_Nonnull deadline);

// GLib's GCancellable through the loaded library (Load.c). New returns a reference
// that the caller releases with Unref; Cancel may be called from any thread.
CVAULTSECRET_INTERNAL struct CVaultSecret_GCancellable *_Nonnull CVaultSecret_CancellableNew(void);
CVAULTSECRET_INTERNAL void CVaultSecret_CancellableCancel(struct CVaultSecret_GCancellable *_Nonnull cancellable);
CVAULTSECRET_INTERNAL void CVaultSecret_CancellableUnref(struct CVaultSecret_GCancellable *_Nonnull cancellable);

#endif
