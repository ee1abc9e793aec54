// See include/CVaultLoader.h.
#include "CVaultLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *_Nonnull CVaultLoader_Reason(const char *_Nonnull prefix, const char *_Nullable reason) {
    const char *text = reason != NULL ? reason : "unknown error";
    size_t size = strlen(prefix) + strlen(text) + 1;
    char *out = malloc(size);
    if (out == NULL) abort();
    snprintf(out, size, "%s%s", prefix, text);
    return out;
}

char *_Nullable CVaultLoader_Open(
    const char *_Nonnull soname, const char *_Nonnull const *_Nonnull names, size_t count,
    CVaultLoader_Function _Nullable *_Nonnull table, void *_Nullable *_Nonnull handle) {
    *handle = NULL;
    // Lazy binding: every function a shim calls is resolved here by dlsym anyway, and RTLD_NOW
    // would bind all of a large library's functions (libsecret, GIO, GLib) at each start.
    void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) return CVaultLoader_Reason("", dlerror());
    (void)dlerror();
    const char *absent = CVaultLoader_Resolve(library, names, count, table);
    if (absent != NULL) {
        char *missing = CVaultLoader_Reason(": missing ", absent);
        char *reason = CVaultLoader_Reason(soname, missing);
        free(missing);
        dlclose(library);
        return reason;
    }
    *handle = library;
    return NULL;
}

const char *_Nullable CVaultLoader_Resolve(
    void *_Nonnull handle, const char *_Nonnull const *_Nonnull names, size_t count,
    CVaultLoader_Function _Nullable *_Nonnull table) {
    for (size_t i = 0; i < count; i++) {
        void *symbol = dlsym(handle, names[i]);
        if (symbol == NULL) return names[i];
        // POSIX guarantees that dlsym's result converts to a function pointer.
        memcpy(&table[i], &symbol, sizeof symbol);
    }
    return NULL;
}
