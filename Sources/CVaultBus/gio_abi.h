// Private to the shim: our own copies of the few GLib and GIO declarations the provider's side of
// D-Bus needs (GDBus: registering objects, answering calls, emitting signals; GVariant).
//
// Why copies: the shim loads libgio with dlopen at run time, so vault has no link-time dependency
// on GLib and builds where its headers are not installed. The copies must match the real ones:
// Tests/VaultCoreTests/SecretServiceProviderABITests.swift compiles a C program against the real
// headers (`pkg-config --cflags gio-2.0`) with CVAULTBUS_ABI_CHECK defined, which compares every
// struct layout, enum value and prototype here with GLib's (as glib_abi.h is checked for the
// client shim).
#ifndef CVAULTBUS_GIO_ABI_H
#define CVAULTBUS_GIO_ABI_H

#include <stddef.h>
#include <stdint.h>

// GError (glib/gerror.h): public struct, read for its domain, code and message.
typedef struct CVaultBus_GErrorLayout {
    uint32_t domain;  // GQuark
    int code;  // gint
    char *message;  // gchar *, owned by the error
} CVaultBus_GErrorLayout;

// Enum values the shim passes (gio/gioenums.h, gio/gdbusconnection.h).
#define CVAULTBUS_G_BUS_TYPE_SESSION 2  // G_BUS_TYPE_SESSION
#define CVAULTBUS_G_DBUS_CALL_FLAGS_NONE 0u  // G_DBUS_CALL_FLAGS_NONE
#define CVAULTBUS_G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES 1u  // every node, not only listed ones
#define CVAULTBUS_G_CONNECT_DEFAULT 0u  // G_CONNECT_DEFAULT (0, spelled G_CONNECT_AFTER & 0 before 2.74)

// Stand-ins for GLib's scalar types (the check compares each with the real one).
#define CVAULTBUS_STANDIN_gboolean int
#define CVAULTBUS_STANDIN_guint unsigned int
#define CVAULTBUS_STANDIN_guint32 uint32_t
#define CVAULTBUS_STANDIN_guint64 uint64_t
#define CVAULTBUS_STANDIN_gulong unsigned long
#define CVAULTBUS_STANDIN_gsize size_t
#define CVAULTBUS_STANDIN_gint int
#define CVAULTBUS_STANDIN_GQuark uint32_t
#define CVAULTBUS_STANDIN_GBusType int
#define CVAULTBUS_STANDIN_GDBusCallFlags unsigned int
#define CVAULTBUS_STANDIN_GDBusSubtreeFlags unsigned int
#define CVAULTBUS_STANDIN_GConnectFlags unsigned int

#ifdef CVAULTBUS_ABI_CHECK
// The checking program includes <gio/gio.h> first and compares against the real types.
#define CVAULTBUS_T_GError GError
#define CVAULTBUS_T_GCancellable GCancellable
#define CVAULTBUS_T_GDBusConnection GDBusConnection
#define CVAULTBUS_T_GDBusMethodInvocation GDBusMethodInvocation
#define CVAULTBUS_T_GDBusNodeInfo GDBusNodeInfo
#define CVAULTBUS_T_GDBusInterfaceInfo GDBusInterfaceInfo
#define CVAULTBUS_T_GDBusInterfaceVTable GDBusInterfaceVTable
#define CVAULTBUS_T_GDBusSubtreeVTable GDBusSubtreeVTable
#define CVAULTBUS_T_GMainContext GMainContext
#define CVAULTBUS_T_GMainLoop GMainLoop
#define CVAULTBUS_T_GVariant GVariant
#define CVAULTBUS_T_GVariantType GVariantType
#define CVAULTBUS_T_GCallback GCallback
#define CVAULTBUS_T_GClosureNotify GClosureNotify
#define CVAULTBUS_T_GDestroyNotify GDestroyNotify
#define CVAULTBUS_T_gboolean gboolean
#define CVAULTBUS_T_guint guint
#define CVAULTBUS_T_guint32 guint32
#define CVAULTBUS_T_guint64 guint64
#define CVAULTBUS_T_gulong gulong
#define CVAULTBUS_T_gsize gsize
#define CVAULTBUS_T_gint gint
#define CVAULTBUS_T_GQuark GQuark
#define CVAULTBUS_T_GBusType GBusType
#define CVAULTBUS_T_GDBusCallFlags GDBusCallFlags
#define CVAULTBUS_T_GDBusSubtreeFlags GDBusSubtreeFlags
#define CVAULTBUS_T_GConnectFlags GConnectFlags
#else
// Objects the shim only passes along stay incomplete types.
struct CVaultBus_GCancellable;
struct CVaultBus_GDBusConnection;
struct CVaultBus_GDBusMethodInvocation;
struct CVaultBus_GMainContext;
struct CVaultBus_GMainLoop;
struct CVaultBus_GVariant;
struct CVaultBus_GVariantType;
#define CVAULTBUS_T_GError CVaultBus_GErrorLayout
#define CVAULTBUS_T_GCancellable struct CVaultBus_GCancellable
#define CVAULTBUS_T_GDBusConnection struct CVaultBus_GDBusConnection
#define CVAULTBUS_T_GDBusMethodInvocation struct CVaultBus_GDBusMethodInvocation
#define CVAULTBUS_T_GDBusNodeInfo CVaultBus_GDBusNodeInfoLayout
#define CVAULTBUS_T_GDBusInterfaceInfo CVaultBus_GDBusInterfaceInfoLayout
#define CVAULTBUS_T_GDBusInterfaceVTable CVaultBus_GDBusInterfaceVTableLayout
#define CVAULTBUS_T_GDBusSubtreeVTable CVaultBus_GDBusSubtreeVTableLayout
#define CVAULTBUS_T_GMainContext struct CVaultBus_GMainContext
#define CVAULTBUS_T_GMainLoop struct CVaultBus_GMainLoop
#define CVAULTBUS_T_GVariant struct CVaultBus_GVariant
#define CVAULTBUS_T_GVariantType struct CVaultBus_GVariantType
#define CVAULTBUS_T_GCallback void (*)(void)
#define CVAULTBUS_T_GClosureNotify void (*)(void *, void *)
#define CVAULTBUS_T_GDestroyNotify void (*)(void *)
#define CVAULTBUS_T_gboolean CVAULTBUS_STANDIN_gboolean
#define CVAULTBUS_T_guint CVAULTBUS_STANDIN_guint
#define CVAULTBUS_T_guint32 CVAULTBUS_STANDIN_guint32
#define CVAULTBUS_T_guint64 CVAULTBUS_STANDIN_guint64
#define CVAULTBUS_T_gulong CVAULTBUS_STANDIN_gulong
#define CVAULTBUS_T_gsize CVAULTBUS_STANDIN_gsize
#define CVAULTBUS_T_gint CVAULTBUS_STANDIN_gint
#define CVAULTBUS_T_GQuark CVAULTBUS_STANDIN_GQuark
#define CVAULTBUS_T_GBusType CVAULTBUS_STANDIN_GBusType
#define CVAULTBUS_T_GDBusCallFlags CVAULTBUS_STANDIN_GDBusCallFlags
#define CVAULTBUS_T_GDBusSubtreeFlags CVAULTBUS_STANDIN_GDBusSubtreeFlags
#define CVAULTBUS_T_GConnectFlags CVAULTBUS_STANDIN_GConnectFlags
#endif

// GDBusInterfaceInfo and GDBusNodeInfo (gio/gdbusintrospection.h): public structs; the shim reads
// a node's interfaces and an interface's name.
typedef struct CVaultBus_GDBusInterfaceInfoLayout {
    int ref_count;
    char *name;
    void **methods;
    void **signals;
    void **properties;
    void **annotations;
} CVaultBus_GDBusInterfaceInfoLayout;

typedef struct CVaultBus_GDBusNodeInfoLayout {
    int ref_count;
    char *path;
    CVaultBus_GDBusInterfaceInfoLayout **interfaces;
    struct CVaultBus_GDBusNodeInfoLayout **nodes;
    void **annotations;
} CVaultBus_GDBusNodeInfoLayout;

// GDBusInterfaceVTable and GDBusSubtreeVTable (gio/gdbusconnection.h): public structs the shim
// fills with its callbacks; GDBus copies them at registration.
typedef struct CVaultBus_GDBusInterfaceVTableLayout {
    void (*method_call)(
        CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, CVAULTBUS_T_GVariant *,
        CVAULTBUS_T_GDBusMethodInvocation *, void *);
    CVAULTBUS_T_GVariant *(*get_property)(
        CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, CVAULTBUS_T_GError **,
        void *);
    CVAULTBUS_T_gboolean (*set_property)(
        CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, CVAULTBUS_T_GVariant *,
        CVAULTBUS_T_GError **, void *);
    void *padding[8];
} CVaultBus_GDBusInterfaceVTableLayout;

typedef struct CVaultBus_GDBusSubtreeVTableLayout {
    char **(*enumerate)(CVAULTBUS_T_GDBusConnection *, const char *, const char *, void *);
    CVAULTBUS_T_GDBusInterfaceInfo **(*introspect)(
        CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, void *);
    const CVAULTBUS_T_GDBusInterfaceVTable *(*dispatch)(
        CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, void **, void *);
    void *padding[8];
} CVaultBus_GDBusSubtreeVTableLayout;

// Every function the shim resolves with dlsym: X(return type, name, (parameter types)).
// GLib's and GObject's functions resolve through libgio's handle, which carries its dependencies.
#define CVAULTBUS_FUNCTIONS(X)                                                                                        \
    X(void, g_free, (void *))                                                                                         \
    X(void *, g_malloc0, (CVAULTBUS_T_gsize))                                                                         \
    X(void, g_error_free, (CVAULTBUS_T_GError *))                                                                     \
    X(const char *, g_quark_to_string, (CVAULTBUS_T_GQuark))                                                          \
    X(void, g_object_unref, (void *))                                                                                 \
    X(CVAULTBUS_T_gulong, g_signal_connect_data,                                                                      \
      (void *, const char *, CVAULTBUS_T_GCallback, void *, CVAULTBUS_T_GClosureNotify, CVAULTBUS_T_GConnectFlags))   \
    X(CVAULTBUS_T_GMainLoop *, g_main_loop_new, (CVAULTBUS_T_GMainContext *, CVAULTBUS_T_gboolean))                   \
    X(void, g_main_loop_run, (CVAULTBUS_T_GMainLoop *))                                                               \
    X(void, g_main_loop_quit, (CVAULTBUS_T_GMainLoop *))                                                              \
    X(void, g_main_loop_unref, (CVAULTBUS_T_GMainLoop *))                                                             \
    X(CVAULTBUS_T_GDBusConnection *, g_bus_get_sync,                                                                  \
      (CVAULTBUS_T_GBusType, CVAULTBUS_T_GCancellable *, CVAULTBUS_T_GError **))                                      \
    X(void, g_dbus_connection_set_exit_on_close, (CVAULTBUS_T_GDBusConnection *, CVAULTBUS_T_gboolean))               \
    X(CVAULTBUS_T_gboolean, g_dbus_connection_is_closed, (CVAULTBUS_T_GDBusConnection *))                             \
    X(CVAULTBUS_T_GVariant *, g_dbus_connection_call_sync,                                                            \
      (CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, CVAULTBUS_T_GVariant *, \
       const CVAULTBUS_T_GVariantType *, CVAULTBUS_T_GDBusCallFlags, CVAULTBUS_T_gint, CVAULTBUS_T_GCancellable *,    \
       CVAULTBUS_T_GError **))                                                                                        \
    X(CVAULTBUS_T_guint, g_dbus_connection_register_subtree,                                                          \
      (CVAULTBUS_T_GDBusConnection *, const char *, const CVAULTBUS_T_GDBusSubtreeVTable *,                           \
       CVAULTBUS_T_GDBusSubtreeFlags, void *, CVAULTBUS_T_GDestroyNotify, CVAULTBUS_T_GError **))                     \
    X(CVAULTBUS_T_gboolean, g_dbus_connection_unregister_subtree, (CVAULTBUS_T_GDBusConnection *, CVAULTBUS_T_guint)) \
    X(CVAULTBUS_T_gboolean, g_dbus_connection_emit_signal,                                                            \
      (CVAULTBUS_T_GDBusConnection *, const char *, const char *, const char *, const char *, CVAULTBUS_T_GVariant *, \
       CVAULTBUS_T_GError **))                                                                                        \
    X(CVAULTBUS_T_gboolean, g_dbus_connection_flush_sync,                                                             \
      (CVAULTBUS_T_GDBusConnection *, CVAULTBUS_T_GCancellable *, CVAULTBUS_T_GError **))                             \
    X(CVAULTBUS_T_GDBusNodeInfo *, g_dbus_node_info_new_for_xml, (const char *, CVAULTBUS_T_GError **))               \
    X(void, g_dbus_node_info_unref, (CVAULTBUS_T_GDBusNodeInfo *))                                                    \
    X(CVAULTBUS_T_GDBusInterfaceInfo *, g_dbus_interface_info_ref, (CVAULTBUS_T_GDBusInterfaceInfo *))                \
    X(void, g_dbus_method_invocation_return_value, (CVAULTBUS_T_GDBusMethodInvocation *, CVAULTBUS_T_GVariant *))     \
    X(void, g_dbus_method_invocation_return_dbus_error,                                                               \
      (CVAULTBUS_T_GDBusMethodInvocation *, const char *, const char *))                                              \
    X(CVAULTBUS_T_GError *, g_dbus_error_new_for_dbus_error, (const char *, const char *))                            \
    X(CVAULTBUS_T_gboolean, g_dbus_error_register_error, (CVAULTBUS_T_GQuark, CVAULTBUS_T_gint, const char *))        \
    X(CVAULTBUS_T_GQuark, g_quark_from_static_string, (const char *))                                                 \
    X(const char *, g_variant_get_type_string, (CVAULTBUS_T_GVariant *))                                              \
    X(CVAULTBUS_T_gsize, g_variant_n_children, (CVAULTBUS_T_GVariant *))                                              \
    X(CVAULTBUS_T_GVariant *, g_variant_get_child_value, (CVAULTBUS_T_GVariant *, CVAULTBUS_T_gsize))                 \
    X(const char *, g_variant_get_string, (CVAULTBUS_T_GVariant *, CVAULTBUS_T_gsize *))                              \
    X(CVAULTBUS_T_gboolean, g_variant_get_boolean, (CVAULTBUS_T_GVariant *))                                          \
    X(CVAULTBUS_T_guint32, g_variant_get_uint32, (CVAULTBUS_T_GVariant *))                                            \
    X(CVAULTBUS_T_guint64, g_variant_get_uint64, (CVAULTBUS_T_GVariant *))                                            \
    X(const void *, g_variant_get_fixed_array, (CVAULTBUS_T_GVariant *, CVAULTBUS_T_gsize *, CVAULTBUS_T_gsize))      \
    X(CVAULTBUS_T_GVariant *, g_variant_get_variant, (CVAULTBUS_T_GVariant *))                                        \
    X(CVAULTBUS_T_GVariant *, g_variant_ref_sink, (CVAULTBUS_T_GVariant *))                                           \
    X(void, g_variant_unref, (CVAULTBUS_T_GVariant *))                                                                \
    X(CVAULTBUS_T_GVariant *, g_variant_new_string, (const char *))                                                   \
    X(CVAULTBUS_T_GVariant *, g_variant_new_object_path, (const char *))                                              \
    X(CVAULTBUS_T_GVariant *, g_variant_new_boolean, (CVAULTBUS_T_gboolean))                                          \
    X(CVAULTBUS_T_GVariant *, g_variant_new_uint32, (CVAULTBUS_T_guint32))                                            \
    X(CVAULTBUS_T_GVariant *, g_variant_new_uint64, (CVAULTBUS_T_guint64))                                            \
    X(CVAULTBUS_T_GVariant *, g_variant_new_fixed_array,                                                              \
      (const CVAULTBUS_T_GVariantType *, const void *, CVAULTBUS_T_gsize, CVAULTBUS_T_gsize))                         \
    X(CVAULTBUS_T_GVariant *, g_variant_new_array,                                                                    \
      (const CVAULTBUS_T_GVariantType *, CVAULTBUS_T_GVariant *const *, CVAULTBUS_T_gsize))                           \
    X(CVAULTBUS_T_GVariant *, g_variant_new_tuple, (CVAULTBUS_T_GVariant *const *, CVAULTBUS_T_gsize))                \
    X(CVAULTBUS_T_GVariant *, g_variant_new_dict_entry, (CVAULTBUS_T_GVariant *, CVAULTBUS_T_GVariant *))             \
    X(CVAULTBUS_T_GVariant *, g_variant_new_variant, (CVAULTBUS_T_GVariant *))                                        \
    X(CVAULTBUS_T_gboolean, g_variant_type_string_is_valid, (const char *))

#endif
