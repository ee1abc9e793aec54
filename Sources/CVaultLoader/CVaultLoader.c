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

char *_Nullable CVaultLoader_Load(
    CVaultLoader_Library *_Nonnull library, const char *_Nonnull soname, const char *_Nonnull const *_Nonnull names,
    size_t count, CVaultLoader_Function _Nullable *_Nonnull table, CVaultLoader_Ready _Nullable ready) {
    if (strchr(soname, '/') != NULL && soname[0] != '/') {
        return CVaultLoader_Reason(soname, ": a relative path; give a bare soname or an absolute path");
    }
    pthread_mutex_lock(&library->lock);
    if (library->loaded && strcmp(library->soname, soname) == 0) {
        pthread_mutex_unlock(&library->lock);
        return NULL;  // loaded by this name already
    }
    // Until a library is in use, the shim's table is filled in place; after, another name is
    // only tried, in a scratch table, so that the table in use is never overwritten.
    CVaultLoader_Function *into = table;
    if (library->loaded) {
        into = calloc(count, sizeof *into);
        if (into == NULL) abort();
    }
    void *handle = NULL;
    char *reason = CVaultLoader_Open(soname, names, count, into, &handle);
    if (reason == NULL && library->loaded) {
        dlclose(handle);  // complete, but another library is in use: a second reference dropped
    } else if (reason == NULL) {
        reason = ready != NULL ? ready(handle, table) : NULL;
        if (reason != NULL) {
            dlclose(handle);
        } else {
            library->soname = strdup(soname);
            if (library->soname == NULL) abort();
            library->loaded = true;  // the handle stays open for the life of the process
        }
    }
    if (into != table) {
        free(into);
    } else if (reason != NULL) {
        memset(table, 0, count * sizeof *table);  // no pointers into a library that was closed
    }
    pthread_mutex_unlock(&library->lock);
    return reason;
}

bool CVaultLoader_IsLoaded(CVaultLoader_Library *_Nonnull library) {
    pthread_mutex_lock(&library->lock);
    bool loaded = library->loaded;
    pthread_mutex_unlock(&library->lock);
    return loaded;
}
