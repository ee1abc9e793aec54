// Private to the shim: our own copies of the few GLib and libsecret declarations it needs.
//
// Why copies: the shim loads libsecret with dlopen at run time, so vault has no link-time
// dependency on libsecret or GLib and builds where their headers are not installed. The
// price is that these declarations must match the real ones. Two things check that, in
// Tests/VaultCoreTests/SecretServiceABITests.swift, which compiles a C program against the
// real headers (`pkg-config --cflags libsecret-1`) with CVAULTSECRET_ABI_CHECK defined:
//   - every struct copied here has the size and field offsets of the real one, every enum
//     value used here has the real value, and every CVAULTSECRET_STANDIN_* type is compatible
//     with the GLib type it stands for;
//   - with CVAULTSECRET_ABI_CHECK, each CVAULTSECRET_T_* type below names the real type, and
//     every prototype in CVAULTSECRET_FUNCTIONS is compared with the real function's type
//     (`__builtin_types_compatible_p`), so a wrong argument or return type fails to compile.
#ifndef CVAULTSECRET_GLIB_ABI_H
#define CVAULTSECRET_GLIB_ABI_H

#include <stddef.h>
#include <stdint.h>

// GError (glib/gerror.h): public struct, read for its domain, code and message.
typedef struct CVaultSecret_GErrorLayout {
    uint32_t domain;  // GQuark
    int code;  // gint
    char *message;  // gchar *, owned by the error
} CVaultSecret_GErrorLayout;

// GList (glib/glist.h): public struct, walked to turn a search result into an array.
typedef struct CVaultSecret_GListLayout {
    void *data;
    struct CVaultSecret_GListLayout *next;
    struct CVaultSecret_GListLayout *prev;
} CVaultSecret_GListLayout;

// Enum values the shim passes (libsecret/secret-types.h, secret-service.h, secret-item.h,
// secret-collection.h; gio/gioenums.h).
#define CVAULTSECRET_SECRET_SERVICE_NONE 0u  // SECRET_SERVICE_NONE
#define CVAULTSECRET_SECRET_COLLECTION_NONE 0u  // SECRET_COLLECTION_NONE
#define CVAULTSECRET_SECRET_ITEM_NONE 0u  // SECRET_ITEM_NONE: no secret loaded
#define CVAULTSECRET_G_BUS_TYPE_SESSION 2  // G_BUS_TYPE_SESSION
#define CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE 0u  // G_DBUS_CALL_FLAGS_NONE: may start the service
#define CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START 1u  // G_DBUS_CALL_FLAGS_NO_AUTO_START
#define CVAULTSECRET_G_DBUS_ERROR_NOT_SUPPORTED 7  // G_DBUS_ERROR_NOT_SUPPORTED
#define CVAULTSECRET_G_IO_ERROR_INVALID_ARGUMENT 13  // G_IO_ERROR_INVALID_ARGUMENT

// Stand-ins for GLib's scalar and callback types (the check compares each with the real one).
#define CVAULTSECRET_STANDIN_gboolean int
#define CVAULTSECRET_STANDIN_guint unsigned int
#define CVAULTSECRET_STANDIN_guint64 uint64_t
#define CVAULTSECRET_STANDIN_gsize size_t
#define CVAULTSECRET_STANDIN_gssize ptrdiff_t
#define CVAULTSECRET_STANDIN_GQuark uint32_t
#define CVAULTSECRET_STANDIN_GBusType int
#define CVAULTSECRET_STANDIN_gint int
#define CVAULTSECRET_STANDIN_GType size_t
#define CVAULTSECRET_STANDIN_guint32 uint32_t
#define CVAULTSECRET_STANDIN_GDBusCallFlags unsigned int
#define CVAULTSECRET_STANDIN_SecretServiceFlags unsigned int
#define CVAULTSECRET_STANDIN_SecretCollectionFlags unsigned int
#define CVAULTSECRET_STANDIN_SecretItemFlags unsigned int
#define CVAULTSECRET_STANDIN_GHashFunc unsigned int (*)(const void *)
#define CVAULTSECRET_STANDIN_GEqualFunc int (*)(const void *, const void *)
#define CVAULTSECRET_STANDIN_GDestroyNotify void (*)(void *)

#ifdef CVAULTSECRET_ABI_CHECK
// The checking program includes <libsecret/secret.h> first and compares against real types.
#define CVAULTSECRET_T_GError GError
#define CVAULTSECRET_T_GList GList
#define CVAULTSECRET_T_GHashTable GHashTable
#define CVAULTSECRET_T_GCancellable GCancellable
#define CVAULTSECRET_T_GDBusConnection GDBusConnection
#define CVAULTSECRET_T_GDBusProxy GDBusProxy
#define CVAULTSECRET_T_GVariant GVariant
#define CVAULTSECRET_T_GVariantType GVariantType
#define CVAULTSECRET_T_gint gint
#define CVAULTSECRET_T_GType GType
#define CVAULTSECRET_T_guint32 guint32
#define CVAULTSECRET_T_GDBusCallFlags GDBusCallFlags
#define CVAULTSECRET_T_SecretService SecretService
#define CVAULTSECRET_T_SecretCollection SecretCollection
#define CVAULTSECRET_T_SecretItem SecretItem
#define CVAULTSECRET_T_gboolean gboolean
#define CVAULTSECRET_T_guint guint
#define CVAULTSECRET_T_guint64 guint64
#define CVAULTSECRET_T_gsize gsize
#define CVAULTSECRET_T_gssize gssize
#define CVAULTSECRET_T_GQuark GQuark
#define CVAULTSECRET_T_GBusType GBusType
#define CVAULTSECRET_T_SecretServiceFlags SecretServiceFlags
#define CVAULTSECRET_T_SecretCollectionFlags SecretCollectionFlags
#define CVAULTSECRET_T_SecretItemFlags SecretItemFlags
#define CVAULTSECRET_T_GHashFunc GHashFunc
#define CVAULTSECRET_T_GEqualFunc GEqualFunc
#define CVAULTSECRET_T_GDestroyNotify GDestroyNotify
#else
// Objects the shim only passes along stay incomplete types.
struct CVaultSecret_GHashTable;
struct CVaultSecret_GCancellable;
struct CVaultSecret_GDBusConnection;
struct CVaultSecret_GDBusProxy;
struct CVaultSecret_GVariant;
struct CVaultSecret_GVariantType;
struct CVaultSecret_SecretService;
struct CVaultSecret_SecretCollection;
struct CVaultSecret_SecretItem;
#define CVAULTSECRET_T_GError CVaultSecret_GErrorLayout
#define CVAULTSECRET_T_GList CVaultSecret_GListLayout
#define CVAULTSECRET_T_GHashTable struct CVaultSecret_GHashTable
#define CVAULTSECRET_T_GCancellable struct CVaultSecret_GCancellable
#define CVAULTSECRET_T_GDBusConnection struct CVaultSecret_GDBusConnection
#define CVAULTSECRET_T_GDBusProxy struct CVaultSecret_GDBusProxy
#define CVAULTSECRET_T_GVariant struct CVaultSecret_GVariant
#define CVAULTSECRET_T_GVariantType struct CVaultSecret_GVariantType
#define CVAULTSECRET_T_gint CVAULTSECRET_STANDIN_gint
#define CVAULTSECRET_T_GType CVAULTSECRET_STANDIN_GType
#define CVAULTSECRET_T_guint32 CVAULTSECRET_STANDIN_guint32
#define CVAULTSECRET_T_GDBusCallFlags CVAULTSECRET_STANDIN_GDBusCallFlags
#define CVAULTSECRET_T_SecretService struct CVaultSecret_SecretService
#define CVAULTSECRET_T_SecretCollection struct CVaultSecret_SecretCollection
#define CVAULTSECRET_T_SecretItem struct CVaultSecret_SecretItem
#define CVAULTSECRET_T_gboolean CVAULTSECRET_STANDIN_gboolean
#define CVAULTSECRET_T_guint CVAULTSECRET_STANDIN_guint
#define CVAULTSECRET_T_guint64 CVAULTSECRET_STANDIN_guint64
#define CVAULTSECRET_T_gsize CVAULTSECRET_STANDIN_gsize
#define CVAULTSECRET_T_gssize CVAULTSECRET_STANDIN_gssize
#define CVAULTSECRET_T_GQuark CVAULTSECRET_STANDIN_GQuark
#define CVAULTSECRET_T_GBusType CVAULTSECRET_STANDIN_GBusType
#define CVAULTSECRET_T_SecretServiceFlags CVAULTSECRET_STANDIN_SecretServiceFlags
#define CVAULTSECRET_T_SecretCollectionFlags CVAULTSECRET_STANDIN_SecretCollectionFlags
#define CVAULTSECRET_T_SecretItemFlags CVAULTSECRET_STANDIN_SecretItemFlags
#define CVAULTSECRET_T_GHashFunc CVAULTSECRET_STANDIN_GHashFunc
#define CVAULTSECRET_T_GEqualFunc CVAULTSECRET_STANDIN_GEqualFunc
#define CVAULTSECRET_T_GDestroyNotify CVAULTSECRET_STANDIN_GDestroyNotify
#endif

// Every function the shim resolves with dlsym: X(return type, name, (parameter types)).
// The *_for_dbus_path(s) functions are in libsecret's "unstable" secret-paths.h (present and
// unchanged since 0.7); a libsecret without them fails CVaultSecret_Load with its name.
// GLib's functions resolve through libsecret's handle, which carries its dependencies.
#define CVAULTSECRET_FUNCTIONS(X)                                                                                      \
    X(void, g_free, (void *))                                                                                          \
    X(void, g_error_free, (CVAULTSECRET_T_GError *))                                                                   \
    X(const char *, g_quark_to_string, (CVAULTSECRET_T_GQuark))                                                        \
    X(void, g_object_unref, (void *))                                                                                  \
    X(char *, g_strdup, (const char *))                                                                                \
    X(unsigned int, g_str_hash, (const void *))                                                                        \
    X(CVAULTSECRET_T_gboolean, g_str_equal, (const void *, const void *))                                              \
    X(CVAULTSECRET_T_GHashTable *, g_hash_table_new_full,                                                              \
      (CVAULTSECRET_T_GHashFunc, CVAULTSECRET_T_GEqualFunc, CVAULTSECRET_T_GDestroyNotify,                             \
       CVAULTSECRET_T_GDestroyNotify))                                                                                 \
    X(CVAULTSECRET_T_gboolean, g_hash_table_insert, (CVAULTSECRET_T_GHashTable *, void *, void *))                     \
    X(void *, g_hash_table_lookup, (CVAULTSECRET_T_GHashTable *, const void *))                                        \
    X(void **, g_hash_table_get_keys_as_array, (CVAULTSECRET_T_GHashTable *, CVAULTSECRET_T_guint *))                  \
    X(void, g_hash_table_unref, (CVAULTSECRET_T_GHashTable *))                                                         \
    X(CVAULTSECRET_T_GCancellable *, g_cancellable_new, (void))                                                        \
    X(void, g_cancellable_cancel, (CVAULTSECRET_T_GCancellable *))                                                     \
    X(CVAULTSECRET_T_GDBusConnection *, g_bus_get_sync,                                                                \
      (CVAULTSECRET_T_GBusType, CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GError **))                              \
    X(void, g_dbus_connection_set_exit_on_close, (CVAULTSECRET_T_GDBusConnection *, CVAULTSECRET_T_gboolean))          \
    X(CVAULTSECRET_T_GVariant *, g_dbus_connection_call_sync,                                                          \
      (CVAULTSECRET_T_GDBusConnection *, const char *, const char *, const char *, const char *,                       \
       CVAULTSECRET_T_GVariant *, const CVAULTSECRET_T_GVariantType *, CVAULTSECRET_T_GDBusCallFlags,                  \
       CVAULTSECRET_T_gint, CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GError **))                                  \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_string, (const char *))                                                 \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_tuple, (CVAULTSECRET_T_GVariant *const *, CVAULTSECRET_T_gsize))        \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_dict_entry, (CVAULTSECRET_T_GVariant *, CVAULTSECRET_T_GVariant *))     \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_array,                                                                  \
      (const CVAULTSECRET_T_GVariantType *, CVAULTSECRET_T_GVariant *const *, CVAULTSECRET_T_gsize))                   \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_variant, (CVAULTSECRET_T_GVariant *))                                   \
    X(CVAULTSECRET_T_GVariant *, g_variant_get_child_value, (CVAULTSECRET_T_GVariant *, CVAULTSECRET_T_gsize))         \
    X(CVAULTSECRET_T_guint32, g_variant_get_uint32, (CVAULTSECRET_T_GVariant *))                                       \
    X(CVAULTSECRET_T_gboolean, g_variant_get_boolean, (CVAULTSECRET_T_GVariant *))                                     \
    X(char *, secret_collection_get_label, (CVAULTSECRET_T_SecretCollection *))                                        \
    X(void, g_variant_unref, (CVAULTSECRET_T_GVariant *))                                                              \
    X(CVAULTSECRET_T_SecretService *, secret_service_get_sync,                                                         \
      (CVAULTSECRET_T_SecretServiceFlags, CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GError **))                    \
    X(CVAULTSECRET_T_SecretCollection *, secret_collection_for_alias_sync,                                             \
      (CVAULTSECRET_T_SecretService *, const char *, CVAULTSECRET_T_SecretCollectionFlags,                             \
       CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GError **))                                                       \
    X(CVAULTSECRET_T_gboolean, secret_collection_get_locked, (CVAULTSECRET_T_SecretCollection *))                      \
    X(void, secret_service_disconnect, (void))                                                                         \
    X(CVAULTSECRET_T_gint, secret_service_unlock_sync,                                                                 \
      (CVAULTSECRET_T_SecretService *, CVAULTSECRET_T_GList *, CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GList **, \
       CVAULTSECRET_T_GError **))                                                                                      \
    X(CVAULTSECRET_T_gint, secret_service_unlock_dbus_paths_sync,                                                      \
      (CVAULTSECRET_T_SecretService *, const char **, CVAULTSECRET_T_GCancellable *, char ***,                         \
       CVAULTSECRET_T_GError **))                                                                                      \
    X(CVAULTSECRET_T_gboolean, secret_item_delete_sync,                                                                \
      (CVAULTSECRET_T_SecretItem *, CVAULTSECRET_T_GCancellable *, CVAULTSECRET_T_GError **))                          \
    X(CVAULTSECRET_T_GVariant *, g_variant_lookup_value,                                                               \
      (CVAULTSECRET_T_GVariant *, const char *, const CVAULTSECRET_T_GVariantType *))                                  \
    X(CVAULTSECRET_T_gsize, g_variant_n_children, (CVAULTSECRET_T_GVariant *))                                         \
    X(const char *, g_variant_get_string, (CVAULTSECRET_T_GVariant *, CVAULTSECRET_T_gsize *))                         \
    X(CVAULTSECRET_T_guint64, g_variant_get_uint64, (CVAULTSECRET_T_GVariant *))                                       \
    X(CVAULTSECRET_T_SecretItem *, secret_item_new_for_dbus_path_sync,                                                 \
      (CVAULTSECRET_T_SecretService *, const char *, CVAULTSECRET_T_SecretItemFlags, CVAULTSECRET_T_GCancellable *,    \
       CVAULTSECRET_T_GError **))                                                                                      \
    X(CVAULTSECRET_T_GError *, g_error_new_literal, (CVAULTSECRET_T_GQuark, CVAULTSECRET_T_gint, const char *))        \
    X(CVAULTSECRET_T_GQuark, g_quark_from_static_string, (const char *))                                               \
    X(const char *, g_dbus_proxy_get_object_path, (CVAULTSECRET_T_GDBusProxy *))                                       \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_object_path, (const char *))                                            \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_boolean, (CVAULTSECRET_T_gboolean))                                     \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_uint64, (CVAULTSECRET_T_guint64))                                       \
    X(CVAULTSECRET_T_GVariant *, g_variant_new_fixed_array,                                                            \
      (const CVAULTSECRET_T_GVariantType *, const void *, CVAULTSECRET_T_gsize, CVAULTSECRET_T_gsize))                 \
    X(const void *, g_variant_get_fixed_array,                                                                         \
      (CVAULTSECRET_T_GVariant *, CVAULTSECRET_T_gsize *, CVAULTSECRET_T_gsize))                                       \
    X(CVAULTSECRET_T_GVariant *, g_variant_get_variant, (CVAULTSECRET_T_GVariant *))                                   \
    X(CVAULTSECRET_T_GVariant *, secret_service_prompt_at_dbus_path_sync,                                              \
      (CVAULTSECRET_T_SecretService *, const char *, CVAULTSECRET_T_GCancellable *,                                    \
       const CVAULTSECRET_T_GVariantType *, CVAULTSECRET_T_GError **))                                                 \
    X(CVAULTSECRET_T_gboolean, g_variant_is_of_type, (CVAULTSECRET_T_GVariant *, const CVAULTSECRET_T_GVariantType *))

#endif
