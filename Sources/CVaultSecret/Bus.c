// The raw bus: the shared session connection and calls on it, every reply checked against its
// type (CVaultSecret_BusCall), and the bus's own questions.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn

// MARK: The connection

// The shim's reference to the shared session bus connection, taken once and kept for the life
// of the process. GLib caches the shared connection only while someone holds it: releasing it
// here closed it, so secret_service_get_sync connected (and said Hello) a second time, on a
// connection whose exit-on-close was on again.
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CVaultSecret_GDBusConnection *session_bus = NULL;  // guarded by bus_lock

bool CVaultSecret_SessionBusConnect(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    // g_bus_get_sync returns the process's shared session connection, which libsecret then
    // uses too. By default GLib ends the process when that connection closes; a library must
    // not, so turn that off: a lost bus becomes an error of the next call instead.
    struct CVaultSecret_GDBusConnection *connection =
        fn.g_bus_get_sync(CVAULTSECRET_G_BUS_TYPE_SESSION, CANCELLABLE(deadline), GERROR_OUT(error));
    if (connection == NULL) return false;
    fn.g_dbus_connection_set_exit_on_close(connection, 0);
    pthread_mutex_lock(&bus_lock);
    if (session_bus == NULL) {
        session_bus = connection;  // this reference is the one kept
        connection = NULL;
    }
    pthread_mutex_unlock(&bus_lock);
    if (connection != NULL) fn.g_object_unref(connection);  // the same connection, already kept
    return true;
}

struct CVaultSecret_GVariant *CVaultSecret_BusCall(
    const char *destination, const char *path, const char *interface, const char *method,
    struct CVaultSecret_GVariant *arguments, const char *reply_type, unsigned int flags,
    CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    pthread_mutex_lock(&bus_lock);
    struct CVaultSecret_GDBusConnection *connection = session_bus;
    pthread_mutex_unlock(&bus_lock);
    if (connection == NULL) {
        fn.g_variant_unref(arguments);  // a floating reference is released like any other
        return NULL;
    }
    return fn.g_dbus_connection_call_sync(
        connection, destination, path, interface, method, arguments, CVAULTSECRET_TYPE(reply_type), flags, -1,
        CANCELLABLE(deadline), GERROR_OUT(error));
}

// CVaultSecret_BusCall for calls that must never start a service.
struct CVaultSecret_GVariant *CVaultSecret_BusCallNoStart(
    const char *destination, const char *path, const char *interface, const char *method,
    struct CVaultSecret_GVariant *arguments, const char *reply_type, CVaultSecret_Deadline *deadline,
    CVaultSecret_Error **error) {
    return CVaultSecret_BusCall(
        destination, path, interface, method, arguments, reply_type, CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START,
        deadline, error);
}

bool CVaultSecret_ProviderProcessID(
    CVaultSecret_Deadline *_Nonnull deadline, uint32_t *_Nonnull pid, CVaultSecret_Error *_Nullable *_Nonnull error) {
    *pid = 0;
    // A tuple built from an array, not g_variant_new("(s)", ...): no variadic call to declare.
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string(CVAULTSECRET_SECRETS);
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCallNoStart(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
        fn.g_variant_new_tuple(&name, 1), "(u)", deadline, error);
    if (reply == NULL) return false;  // not connected: nothing to ask, or the error
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    *pid = fn.g_variant_get_uint32(value);
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    return true;
}

// MARK: vault's own provider (the file key handed to it by `vault unlock`)

// One string argument in a tuple: the bus's own methods take a name.
static struct CVaultSecret_GVariant *bus_question(
    const char *method, const char *argument, const char *reply_type, CVaultSecret_Deadline *deadline,
    CVaultSecret_Error **error) {
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string(argument);
    return CVaultSecret_BusCallNoStart(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
        fn.g_variant_new_tuple(&name, 1), reply_type, deadline, error);
}

// The first child of a reply of type "(u)", and the reply released.
static uint32_t take_uint32(struct CVaultSecret_GVariant *reply) {
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    uint32_t number = fn.g_variant_get_uint32(value);
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    return number;
}

char *_Nullable CVaultSecret_NameOwner(
    const char *_Nonnull name, uint32_t *_Nonnull uid, uint32_t *_Nonnull pid, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    *uid = UINT32_MAX;
    *pid = 0;
    struct CVaultSecret_GVariant *reply = bus_question("GetNameOwner", name, "(s)", deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    char *unique = strdup(fn.g_variant_get_string(value, NULL));
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    if (unique == NULL) abort();  // as GLib does when memory is exhausted
    reply = bus_question("GetConnectionUnixUser", unique, "(u)", deadline, error);
    if (reply != NULL) *uid = take_uint32(reply);
    if (reply != NULL) reply = bus_question("GetConnectionUnixProcessID", unique, "(u)", deadline, error);
    if (reply != NULL) *pid = take_uint32(reply);
    if (*error != NULL) {
        free(unique);
        return NULL;
    }
    return unique;
}

bool CVaultSecret_CallWithBytes(
    const char *_Nonnull destination, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull method, const uint8_t *_Nullable bytes, size_t length, const uint64_t *_Nullable number,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    struct CVaultSecret_GVariant *arguments[2];
    size_t count = 0;
    if (bytes != NULL) arguments[count++] = fn.g_variant_new_fixed_array(CVAULTSECRET_TYPE("y"), bytes, length, 1);
    if (number != NULL) arguments[count++] = fn.g_variant_new_uint64(*number);
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCallNoStart(
        destination, path, interface, method, fn.g_variant_new_tuple(arguments, count), "()", deadline, error);
    if (reply == NULL) return false;
    fn.g_variant_unref(reply);
    return true;
}
