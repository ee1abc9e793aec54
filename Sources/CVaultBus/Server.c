// The server: loading libgio, the session-bus connection, the subtree registrations that route
// every call to Swift's handlers, and the main loop. See include/CVaultBus.h for the contract and
// gio_abi.h for the copied declarations.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CVaultBus.h"
#include "CVaultLoader.h"
#include "gio_abi.h"
#include "shim_internal.h"

// MARK: Loading

static CVaultLoader_Library library = CVAULTLOADER_LIBRARY_INIT;
// Written once, under the library's lock, before it counts as loaded.
CVaultBus_Functions CVaultBus_fn;

char *_Nullable CVaultBus_Load(const char *_Nonnull soname) {
    return CVAULTLOADER_LOAD(&library, soname, CVaultBus_Functions, &fn, NULL);
}

// MARK: The server

#define ERROR_OUT(error) ((CVaultBus_GErrorLayout **)(void *)(error))
#define VARIANT(value) ((struct CVaultBus_GVariant *)(void *)(value))

struct CVaultBus_Server {
    struct CVaultBus_GDBusConnection *connection;  // a reference of our own
    CVaultBus_GDBusNodeInfoLayout *node;  // the parsed XML
    struct CVaultBus_GMainLoop *loop;
    CVaultBus_Handlers handlers;
    unsigned int *registrations;  // malloc'd, registration_count of them
    size_t registration_count;
};

static const char DBUS_NAME[] = "org.freedesktop.DBus";
static const char DBUS_PATH[] = "/org/freedesktop/DBus";

// A node below a registered root as a whole path: GDBus gives the subtree's callbacks the root
// and the rest ("collection/login/7") apart. The caller frees it.
static char *whole_path(const char *root, const char *node) {
    if (node == NULL || node[0] == 0) return strdup(root);
    char *path = NULL;
    if (asprintf(&path, "%s/%s", root, node) < 0) return NULL;
    return path;
}

static void on_method(
    struct CVaultBus_GDBusConnection *connection, const char *sender, const char *path, const char *interface,
    const char *method, struct CVaultBus_GVariant *parameters, struct CVaultBus_GDBusMethodInvocation *invocation,
    void *data) {
    (void)connection;
    CVaultBus_Server *server = data;
    server->handlers.method(
        server->handlers.context, sender, path, interface, method, (CVaultBus_Variant *)(void *)parameters,
        (CVaultBus_Invocation *)(void *)invocation);
}

static struct CVaultBus_GVariant *on_get_property(
    struct CVaultBus_GDBusConnection *connection, const char *sender, const char *path, const char *interface,
    const char *name, CVaultBus_GErrorLayout **error, void *data) {
    (void)connection;
    CVaultBus_Server *server = data;
    return VARIANT(server->handlers.get_property(
        server->handlers.context, sender, path, interface, name, (CVaultBus_Fault *)(void *)error));
}

static int on_set_property(
    struct CVaultBus_GDBusConnection *connection, const char *sender, const char *path, const char *interface,
    const char *name, struct CVaultBus_GVariant *value, CVaultBus_GErrorLayout **error, void *data) {
    (void)connection;
    CVaultBus_Server *server = data;
    return server->handlers.set_property(
        server->handlers.context, sender, path, interface, name, (CVaultBus_Variant *)(void *)value,
        (CVaultBus_Fault *)(void *)error);
}

static const CVaultBus_GDBusInterfaceVTableLayout interface_vtable = {
    .method_call = on_method,
    .get_property = on_get_property,
    .set_property = on_set_property,
};

// No node is listed: every object is reached by DISPATCH_TO_UNENUMERATED_NODES, and Introspect
// of a root shows its own interfaces only. The array is freed by GDBus (g_strfreev).
static char **
on_enumerate(struct CVaultBus_GDBusConnection *connection, const char *sender, const char *root, void *data) {
    (void)connection, (void)sender, (void)root, (void)data;
    return fn.g_malloc0(sizeof(char *));
}

static uint64_t interfaces_at(CVaultBus_Server *server, const char *root, const char *node) {
    char *path = whole_path(root, node);
    if (path == NULL) return 0;
    uint64_t mask = server->handlers.interfaces(server->handlers.context, path);
    free(path);
    return mask;
}

// The interfaces of the object a subtree callback is asked about. GLib (2.74 at least) passes
// these callbacks, when it dispatches a call, the requested path whole as `root` (with `node`, its
// last element, again), and elsewhere the registered root with the node apart. So when `root`
// already ends in "/node" and names an object, it is the object's path. The one path read wrong
// is an object named like its parent below a registered object (a collection's item whose id is
// the collection's: ids of items are random hexadecimal, so no item is). This only picks the
// interfaces; the method and property callbacks get the message's own path.
static uint64_t object_interfaces(CVaultBus_Server *server, const char *root, const char *node) {
    size_t root_length = strlen(root), node_length = node != NULL ? strlen(node) : 0;
    if (node_length > 0 && root_length > node_length && root[root_length - node_length - 1] == '/'
        && strcmp(root + root_length - node_length, node) == 0) {
        uint64_t whole = interfaces_at(server, root, NULL);
        if (whole != 0) return whole;
    }
    return interfaces_at(server, root, node);
}

// The interfaces of the object at root/node, each with a reference for GDBus, which frees the
// array; NULL when there is no such object (GDBus then answers that it is unknown).
static CVaultBus_GDBusInterfaceInfoLayout **on_introspect(
    struct CVaultBus_GDBusConnection *connection, const char *sender, const char *root, const char *node, void *data) {
    (void)connection, (void)sender;
    CVaultBus_Server *server = data;
    uint64_t mask = object_interfaces(server, root, node);
    if (mask == 0) return NULL;
    size_t count = 0;
    while (server->node->interfaces[count] != NULL) count++;
    CVaultBus_GDBusInterfaceInfoLayout **infos = fn.g_malloc0((count + 1) * sizeof *infos);
    size_t used = 0;
    for (size_t index = 0; index < count && index < 64; index++) {
        if (mask & (UINT64_C(1) << index))
            infos[used++] = fn.g_dbus_interface_info_ref(server->node->interfaces[index]);
    }
    return infos;
}

static const CVaultBus_GDBusInterfaceVTableLayout *on_dispatch(
    struct CVaultBus_GDBusConnection *connection, const char *sender, const char *root, const char *interface,
    const char *node, void **out_data, void *data) {
    (void)connection, (void)sender;
    CVaultBus_Server *server = data;
    uint64_t mask = object_interfaces(server, root, node);
    for (size_t index = 0; index < 64 && server->node->interfaces[index] != NULL; index++) {
        if ((mask & (UINT64_C(1) << index)) && strcmp(server->node->interfaces[index]->name, interface) == 0) {
            *out_data = server;
            return &interface_vtable;
        }
    }
    return NULL;
}

static const CVaultBus_GDBusSubtreeVTableLayout subtree_vtable = {
    .enumerate = on_enumerate,
    .introspect = on_introspect,
    .dispatch = on_dispatch,
};

// The connection's "closed" signal: the bus went away (or closed our connection).
static void on_closed(struct CVaultBus_GDBusConnection *connection, int vanished, void *error, void *data) {
    (void)connection, (void)vanished, (void)error;
    CVaultBus_ServerStop(data);
}

CVaultBus_Server *_Nullable CVaultBus_ServerNew(
    const char *_Nonnull xml, CVaultBus_Handlers handlers, CVaultBus_Error *_Nullable *_Nonnull error) {
    CVaultBus_Server *server = calloc(1, sizeof *server);
    if (server == NULL) abort();
    server->handlers = handlers;
    server->node = fn.g_dbus_node_info_new_for_xml(xml, ERROR_OUT(error));
    if (server->node == NULL) goto failed;
    server->connection = fn.g_bus_get_sync(CVAULTBUS_G_BUS_TYPE_SESSION, NULL, ERROR_OUT(error));
    if (server->connection == NULL) goto failed;
    // GDBus's default for a shared connection raises SIGTERM when it closes; the loop ends instead,
    // so the provider can finish what it is doing and exit on its own.
    fn.g_dbus_connection_set_exit_on_close(server->connection, 0);
    server->loop = fn.g_main_loop_new(NULL, 0);
    fn.g_signal_connect_data(
        server->connection, "closed", (void (*)(void))on_closed, server, NULL, CVAULTBUS_G_CONNECT_DEFAULT);
    return server;
failed:
    CVaultBus_ServerFree(server);
    return NULL;
}

bool CVaultBus_ServerRegister(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull root, CVaultBus_Error *_Nullable *_Nonnull error) {
    unsigned int id = fn.g_dbus_connection_register_subtree(
        server->connection, root, &subtree_vtable, CVAULTBUS_G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
        server, NULL, ERROR_OUT(error));
    if (id == 0) return false;
    unsigned int *grown = realloc(server->registrations, (server->registration_count + 1) * sizeof *grown);
    if (grown == NULL) abort();
    server->registrations = grown;
    server->registrations[server->registration_count++] = id;
    return true;
}

void CVaultBus_ServerFree(CVaultBus_Server *_Nullable server) {
    if (server == NULL) return;
    if (server->connection != NULL) {
        for (size_t index = 0; index < server->registration_count; index++) {
            fn.g_dbus_connection_unregister_subtree(server->connection, server->registrations[index]);
        }
        // Answers and signals still queued go out before the connection is dropped.
        if (!fn.g_dbus_connection_is_closed(server->connection)) {
            fn.g_dbus_connection_flush_sync(server->connection, NULL, NULL);
        }
        fn.g_object_unref(server->connection);
    }
    if (server->loop != NULL) fn.g_main_loop_unref(server->loop);
    if (server->node != NULL) fn.g_dbus_node_info_unref(server->node);
    free(server->registrations);
    free(server);
}

static struct CVaultBus_GVariant *call_bus(
    CVaultBus_Server *server, const char *method, struct CVaultBus_GVariant *arguments, const char *reply_type,
    CVaultBus_Error **error) {
    return fn.g_dbus_connection_call_sync(
        server->connection, DBUS_NAME, DBUS_PATH, DBUS_NAME, method, arguments,
        (const struct CVaultBus_GVariantType *)reply_type, CVAULTBUS_G_DBUS_CALL_FLAGS_NONE, -1, NULL,
        ERROR_OUT(error));
}

uint32_t CVaultBus_ServerRequestName(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull name, CVaultBus_Error *_Nullable *_Nonnull error) {
    enum { DO_NOT_QUEUE = 4 };  // DBUS_NAME_FLAG_DO_NOT_QUEUE, and neither replacing nor replaceable
    struct CVaultBus_GVariant *arguments[] = {fn.g_variant_new_string(name), fn.g_variant_new_uint32(DO_NOT_QUEUE)};
    struct CVaultBus_GVariant *reply =
        call_bus(server, "RequestName", fn.g_variant_new_tuple(arguments, 2), "(u)", error);
    if (reply == NULL) return 0;
    struct CVaultBus_GVariant *child = fn.g_variant_get_child_value(reply, 0);
    uint32_t answer = fn.g_variant_get_uint32(child);
    fn.g_variant_unref(child);
    fn.g_variant_unref(reply);
    return answer;
}

bool CVaultBus_ServerSenderUID(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull sender, uint32_t *_Nonnull uid,
    CVaultBus_Error *_Nullable *_Nonnull error) {
    struct CVaultBus_GVariant *argument = fn.g_variant_new_string(sender);
    struct CVaultBus_GVariant *reply =
        call_bus(server, "GetConnectionUnixUser", fn.g_variant_new_tuple(&argument, 1), "(u)", error);
    if (reply == NULL) return false;
    struct CVaultBus_GVariant *child = fn.g_variant_get_child_value(reply, 0);
    *uid = fn.g_variant_get_uint32(child);
    fn.g_variant_unref(child);
    fn.g_variant_unref(reply);
    return true;
}

int CVaultBus_ServerNameHasOwner(CVaultBus_Server *_Nonnull server, const char *_Nonnull name) {
    struct CVaultBus_GVariant *argument = fn.g_variant_new_string(name);
    CVaultBus_Error *error = NULL;
    struct CVaultBus_GVariant *reply =
        call_bus(server, "NameHasOwner", fn.g_variant_new_tuple(&argument, 1), "(b)", &error);
    if (reply == NULL) {
        CVaultBus_ErrorFree(error);
        return -1;
    }
    struct CVaultBus_GVariant *child = fn.g_variant_get_child_value(reply, 0);
    int owned = fn.g_variant_get_boolean(child) != 0;
    fn.g_variant_unref(child);
    fn.g_variant_unref(reply);
    return owned;
}

void CVaultBus_ServerRun(CVaultBus_Server *_Nonnull server) {
    if (!fn.g_dbus_connection_is_closed(server->connection)) fn.g_main_loop_run(server->loop);
}

void CVaultBus_ServerStop(CVaultBus_Server *_Nonnull server) {
    fn.g_main_loop_quit(server->loop);
}

bool CVaultBus_ServerEmit(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull name, CVaultBus_Variant *_Nonnull arguments, CVaultBus_Error *_Nullable *_Nonnull error) {
    return fn.g_dbus_connection_emit_signal(
        server->connection, NULL, path, interface, name, VARIANT(arguments), ERROR_OUT(error));
}

void CVaultBus_Return(CVaultBus_Invocation *_Nonnull invocation, CVaultBus_Variant *_Nonnull result) {
    fn.g_dbus_method_invocation_return_value(
        (struct CVaultBus_GDBusMethodInvocation *)(void *)invocation, VARIANT(result));
}

void CVaultBus_ReturnError(
    CVaultBus_Invocation *_Nonnull invocation, const char *_Nonnull name, const char *_Nonnull message) {
    fn.g_dbus_method_invocation_return_dbus_error(
        (struct CVaultBus_GDBusMethodInvocation *)(void *)invocation, name, message);
}

// GDBus answers a property call that failed with a GError, and names it on the wire by the
// GError's domain and code: only a name registered for one (CVaultBus_RegisterErrors, or GLib's
// own org.freedesktop.DBus.Error.*) keeps its name. GDBus passes no GError at all where it cannot
// report one (GetAll): then the property is left out.
void CVaultBus_Fail(CVaultBus_Fault *_Nullable fault, const char *_Nonnull name, const char *_Nonnull message) {
    CVaultBus_GErrorLayout **error = (CVaultBus_GErrorLayout **)(void *)fault;
    if (error != NULL && *error == NULL) *error = fn.g_dbus_error_new_for_dbus_error(name, message);
}

void CVaultBus_RegisterErrors(const char *_Nonnull const *_Nonnull names, size_t count) {
    uint32_t domain = fn.g_quark_from_static_string("vault-provider-error-quark");
    for (size_t index = 0; index < count; index++) {
        // False for a name registered already (GLib's own, or ours in an earlier call): kept.
        (void)fn.g_dbus_error_register_error(domain, (int)index + 1, names[index]);
    }
}

const char *_Nonnull CVaultBus_ErrorMessage(const CVaultBus_Error *_Nonnull error) {
    const char *message = ((const CVaultBus_GErrorLayout *)(const void *)error)->message;
    return message != NULL ? message : "";
}

void CVaultBus_ErrorFree(CVaultBus_Error *_Nullable error) {
    if (error != NULL) fn.g_error_free((CVaultBus_GErrorLayout *)(void *)error);
}
