// CVaultLoader: loads a shared library at run time for the shims (CVaultHTTP, CVaultSecret).
//
// It exists so that vault has no link-time dependency on the libraries its optional backends
// use (libcurl, libsecret): each shim opens its library on first use with this one loader and
// keeps its own table of function pointers. Used from C only; Swift never imports it.
#ifndef CVAULTLOADER_H
#define CVAULTLOADER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/// The type every slot of a function table is stored as: tables are structs of `count`
/// function pointers, which the caller checks have this size each (a _Static_assert).
typedef void (*CVaultLoader_Function)(void);

/// Opens `soname` with dlopen (lazy binding, local symbols) and resolves each of the `count`
/// names with dlsym into `table`, which holds `count` function pointers in the order of
/// `names`. On success returns NULL and stores the handle, which the caller owns (dlclose), in
/// `*handle`; `table` is then complete. On failure returns the reason (the first missing
/// symbol, or dlerror's text), malloc'd, for the caller to free(); the library is closed and
/// `*handle` is NULL. `table` may be partly written either way: copy it only on success.
char *_Nullable CVaultLoader_Open(
    const char *_Nonnull soname, const char *_Nonnull const *_Nonnull names, size_t count,
    CVaultLoader_Function _Nullable *_Nonnull table, void *_Nullable *_Nonnull handle);

/// Resolves each of the `count` names with dlsym in the library open at `handle` (and the
/// libraries it depends on) into `table`, as CVaultLoader_Open does. Returns NULL once all are
/// resolved, else the first name that is missing (one of `names`, not to be freed); `table` is
/// then incomplete and must not be used. For functions a shim can do without.
const char *_Nullable CVaultLoader_Resolve(
    void *_Nonnull handle, const char *_Nonnull const *_Nonnull names, size_t count,
    CVaultLoader_Function _Nullable *_Nonnull table);

/// Declares a shim's function table from its X-macro list, each entry X(return type, name,
/// (parameter types)): the struct `Type`, one function pointer per entry named after the
/// function; `Type##_names`, the names in the same order; and a check that the struct is laid
/// out as the array CVaultLoader_Open fills.
#define CVAULTLOADER_TABLE(Type, LIST)                                                        \
    typedef struct Type {                                                                     \
        LIST(CVAULTLOADER_FIELD)                                                              \
    } Type;                                                                                   \
    static const char *const Type##_names[] = {LIST(CVAULTLOADER_NAME)};                      \
    _Static_assert(                                                                           \
        sizeof(Type) == sizeof Type##_names / sizeof(char *) * sizeof(CVaultLoader_Function), \
        "a function table is an array of function pointers")
#define CVAULTLOADER_FIELD(ret, name, params) ret(*name) params;
#define CVAULTLOADER_NAME(ret, name, params) #name,

/// CVaultLoader_Open for a table declared with CVAULTLOADER_TABLE: `table` is a `Type`.
#define CVAULTLOADER_OPEN(soname, Type, table, handle) \
    CVaultLoader_Open(                                 \
        (soname), Type##_names, sizeof Type##_names / sizeof(char *), (CVaultLoader_Function *)(table), (handle))

/// CVaultLoader_Resolve for a table declared with CVAULTLOADER_TABLE: `table` is a `Type`.
#define CVAULTLOADER_RESOLVE(handle, Type, table) \
    CVaultLoader_Resolve((handle), Type##_names, sizeof Type##_names / sizeof(char *), (CVaultLoader_Function *)(table))

/// A shim's library, loaded once for the process (see CVaultLoader_Load). Define one per shim
/// with CVAULTLOADER_LIBRARY_INIT; its fields are the loader's.
typedef struct CVaultLoader_Library {
    pthread_mutex_t lock;
    bool loaded;  // guarded by lock; once true, stays true (the handle is never closed)
    char *_Nullable soname;  // the name the library was loaded by, malloc'd, guarded by lock
} CVaultLoader_Library;
#define CVAULTLOADER_LIBRARY_INIT \
    { PTHREAD_MUTEX_INITIALIZER, false, NULL }

/// Called once a library has loaded completely into the shim's `table`, under the library's lock,
/// before it is used: NULL to accept it, or the reason to refuse it (malloc'd, as
/// CVaultLoader_Reason makes; the library is then closed and `table` cleared). For a shim with
/// more to do than keep the table (libcurl's global initialisation, optional functions).
typedef char *_Nullable (*CVaultLoader_Ready)(void *_Nonnull handle, const void *_Nonnull table);

/// The shims' one load policy. A name with a '/' that is not absolute is refused unopened: it
/// would be opened relative to the current directory, where anyone may have put a library (the
/// binary has no run path, so a bare soname is searched in the system's directories only). The
/// library loaded by `soname` before is not opened again: NULL at once. Any other name is opened
/// and resolved into `table`, so that a name that does not load reports its own reason; the first
/// library that loads completely (and that `ready`, if given, accepts) is kept for the life of the
/// process, and a later complete one is closed again (the first stays in use). `table` is the
/// shim's own: it is filled only by the library that comes into use, and cleared if that one
/// fails to load or is refused; once a library is in use, it is never written again.
/// Thread-safe. Returns NULL on success, else the reason, malloc'd, for the caller to free().
char *_Nullable CVaultLoader_Load(
    CVaultLoader_Library *_Nonnull library, const char *_Nonnull soname, const char *_Nonnull const *_Nonnull names,
    size_t count, CVaultLoader_Function _Nullable *_Nonnull table, CVaultLoader_Ready _Nullable ready);

/// Whether a library has been loaded (and its table filled) by CVaultLoader_Load.
bool CVaultLoader_IsLoaded(CVaultLoader_Library *_Nonnull library);

/// CVaultLoader_Load for a table declared with CVAULTLOADER_TABLE: `table` is a `Type`.
#define CVAULTLOADER_LOAD(library, soname, Type, table, ready)                                                     \
    CVaultLoader_Load(                                                                                             \
        (library), (soname), Type##_names, sizeof Type##_names / sizeof(char *), (CVaultLoader_Function *)(table), \
        (ready))

/// `prefix` followed by `reason` ("unknown error" when NULL), malloc'd; the caller frees it.
/// Aborts when out of memory: a NULL would read as success to the shims' callers.
char *_Nonnull CVaultLoader_Reason(const char *_Nonnull prefix, const char *_Nullable reason);

#endif
