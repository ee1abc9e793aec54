// CVaultLoader: loads a shared library at run time for the shims (CVaultHTTP, CVaultSecret).
//
// It exists so that vault has no link-time dependency on the libraries its optional backends
// use (libcurl, libsecret): each shim opens its library on first use with this one loader and
// keeps its own table of function pointers. Used from C only; Swift never imports it.
#ifndef CVAULTLOADER_H
#define CVAULTLOADER_H

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
    _Static_assert(sizeof(Type) == sizeof Type##_names / sizeof(char *) * sizeof(CVaultLoader_Function), \
                   "a function table is an array of function pointers")
#define CVAULTLOADER_FIELD(ret, name, params) ret(*name) params;
#define CVAULTLOADER_NAME(ret, name, params) #name,

/// CVaultLoader_Open for a table declared with CVAULTLOADER_TABLE: `table` is a `Type`.
#define CVAULTLOADER_OPEN(soname, Type, table, handle)                                                   \
    CVaultLoader_Open((soname), Type##_names, sizeof Type##_names / sizeof(char *), (CVaultLoader_Function *)(table), \
                      (handle))

/// CVaultLoader_Resolve for a table declared with CVAULTLOADER_TABLE: `table` is a `Type`.
#define CVAULTLOADER_RESOLVE(handle, Type, table) \
    CVaultLoader_Resolve((handle), Type##_names, sizeof Type##_names / sizeof(char *), (CVaultLoader_Function *)(table))

/// `prefix` followed by `reason` ("unknown error" when NULL), malloc'd; the caller frees it.
/// Aborts when out of memory: a NULL would read as success to the shims' callers.
char *_Nonnull CVaultLoader_Reason(const char *_Nonnull prefix, const char *_Nullable reason);

#endif
