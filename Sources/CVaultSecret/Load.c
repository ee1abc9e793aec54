// The shim's loading and its errors: libsecret's (and GLib's) functions, required, and
// libgcrypt's, optional (shim_internal.h), through CVaultLoader's one load policy. See
// include/CVaultSecret.h for the contract and glib_abi.h for the copied declarations.
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn

// MARK: Loading

static CVaultLoader_Library library = CVAULTLOADER_LIBRARY_INIT;
// Written once, under the library's lock, before it counts as loaded.
CVaultSecret_Functions CVaultSecret_fn;
CVaultSecret_GcryptFunctions CVaultSecret_gcry;
bool CVaultSecret_HasGcrypt = false;

// CVaultLoader's ready hook: libgcrypt's functions too, if the library brings them (libgcrypt is
// libsecret's dependency unless libsecret was built without it).
static char *ready(void *handle, const void *table) {
    (void)table;
    CVaultSecret_GcryptFunctions gcrypt;
    CVaultSecret_HasGcrypt = CVAULTLOADER_RESOLVE(handle, CVaultSecret_GcryptFunctions, &gcrypt) == NULL;
    if (CVaultSecret_HasGcrypt) CVaultSecret_gcry = gcrypt;
    return NULL;
}

char *_Nullable CVaultSecret_Load(const char *_Nonnull soname) {
    return CVAULTLOADER_LOAD(&library, soname, CVaultSecret_Functions, &fn, ready);
}

bool CVaultSecret_IsLoaded(void) {
    return CVaultLoader_IsLoaded(&library);
}

// libgcrypt by itself, for the provider's key agreement (CVaultSecret_LoadGcrypt): its own
// library slot, so that a process that never loads libsecret still has the functions.
static CVaultLoader_Library gcrypt_library = CVAULTLOADER_LIBRARY_INIT;

// The table is complete by now; the flag says so to the key agreement.
static char *gcrypt_ready(void *handle, const void *table) {
    (void)handle;
    (void)table;
    CVaultSecret_HasGcrypt = true;
    return NULL;
}

char *_Nullable CVaultSecret_LoadGcrypt(const char *_Nonnull soname) {
    if (CVaultLoader_IsLoaded(&library) && CVaultSecret_HasGcrypt) return NULL;
    return CVAULTLOADER_LOAD(&gcrypt_library, soname, CVaultSecret_GcryptFunctions, &CVaultSecret_gcry, gcrypt_ready);
}

// MARK: Errors

#define AS_GERROR(error) ((const CVaultSecret_GErrorLayout *)(const void *)(error))

const char *_Nonnull CVaultSecret_ErrorDomain(const CVaultSecret_Error *_Nonnull error) {
    const char *domain = fn.g_quark_to_string(AS_GERROR(error)->domain);
    return domain != NULL ? domain : "unknown";
}

int32_t CVaultSecret_ErrorCode(const CVaultSecret_Error *_Nonnull error) {
    return AS_GERROR(error)->code;
}

const char *_Nonnull CVaultSecret_ErrorMessage(const CVaultSecret_Error *_Nonnull error) {
    const char *message = AS_GERROR(error)->message;
    return message != NULL ? message : "";
}

void CVaultSecret_ErrorFree(CVaultSecret_Error *_Nullable error) {
    if (error != NULL) fn.g_error_free((CVaultSecret_GErrorLayout *)(void *)error);
}

// MARK: GLib access for the deadline (Deadline.c)

struct CVaultSecret_GCancellable *CVaultSecret_CancellableNew(void) {
    return fn.g_cancellable_new();
}

void CVaultSecret_CancellableCancel(struct CVaultSecret_GCancellable *cancellable) {
    fn.g_cancellable_cancel(cancellable);
}

void CVaultSecret_CancellableUnref(struct CVaultSecret_GCancellable *cancellable) {
    fn.g_object_unref(cancellable);
}
