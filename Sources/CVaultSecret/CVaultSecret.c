// The shim's loader and thin wrappers. See include/CVaultSecret.h for the contract and
// glib_abi.h for the copied GLib/libsecret declarations and how they are checked.
#define _GNU_SOURCE
#include "CVaultSecret.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CVaultLoader.h"
#include "glib_abi.h"
#include "shim_internal.h"

// MARK: Loading

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
// Written once, under load_lock, before `loaded` is set.
CVaultSecret_Functions CVaultSecret_fn;
CVaultSecret_GcryptFunctions CVaultSecret_gcry;
bool CVaultSecret_HasGcrypt = false;
static bool loaded = false;

#define fn CVaultSecret_fn

char *_Nullable CVaultSecret_Load(const char *_Nonnull soname) {
    // A name with a '/' that is not absolute is opened relative to the current directory, where
    // anyone may have put a library: only a bare soname (searched in the system's directories;
    // the binary has no run path) or an absolute path is loaded.
    if (strchr(soname, '/') != NULL && soname[0] != '/') {
        return CVaultLoader_Reason(soname, ": a relative path; give a bare soname or an absolute path");
    }
    pthread_mutex_lock(&load_lock);
    // Every call opens the library, so a name that does not load reports its own reason
    // even after another name loaded; the first complete library stays in use.
    CVaultSecret_Functions table;
    void *handle = NULL;
    char *reason = CVAULTLOADER_OPEN(soname, CVaultSecret_Functions, &table, &handle);
    if (reason == NULL && !loaded) {
        fn = table;
        // libgcrypt comes with libsecret (its dependency) unless libsecret was built without it.
        CVaultSecret_GcryptFunctions gcrypt;
        CVaultSecret_HasGcrypt = CVAULTLOADER_RESOLVE(handle, CVaultSecret_GcryptFunctions, &gcrypt) == NULL;
        if (CVaultSecret_HasGcrypt) CVaultSecret_gcry = gcrypt;
        loaded = true;  // the handle stays open for the life of the process
    } else if (reason == NULL) {
        dlclose(handle);  // a second reference to a library in use
    }
    pthread_mutex_unlock(&load_lock);
    return reason;
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


// MARK: Service and collections

#define CANCELLABLE(deadline) CVaultSecret_DeadlineCancellable(deadline)

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
static struct CVaultSecret_GVariant *bus_call(
    const char *destination, const char *path, const char *interface, const char *method,
    struct CVaultSecret_GVariant *arguments, const char *reply_type, CVaultSecret_Deadline *deadline,
    CVaultSecret_Error **error) {
    return CVaultSecret_BusCall(
        destination, path, interface, method, arguments, reply_type, CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START,
        deadline, error);
}

bool CVaultSecret_ProviderProcessID(
    CVaultSecret_Deadline *_Nonnull deadline, uint32_t *_Nonnull pid,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    *pid = 0;
    // A tuple built from an array, not g_variant_new("(s)", ...): no variadic call to declare.
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string("org.freedesktop.secrets");
    struct CVaultSecret_GVariant *reply = bus_call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
        fn.g_variant_new_tuple(&name, 1), "(u)", deadline, error);
    if (reply == NULL) return false;  // not connected: nothing to ask, or the error
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    *pid = fn.g_variant_get_uint32(value);
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    return true;
}

bool CVaultSecret_KWalletIsOpen(
    CVaultSecret_Collection *_Nonnull collection, const char *_Nonnull kwalletd,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    char *label = fn.secret_collection_get_label((struct CVaultSecret_SecretCollection *)collection);
    if (label == NULL) return false;
    char bus_name[64], path[64];
    snprintf(bus_name, sizeof bus_name, "org.kde.%s", kwalletd);
    snprintf(path, sizeof path, "/modules/%s", kwalletd);
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string(label);
    fn.g_free(label);
    struct CVaultSecret_GVariant *reply =
        bus_call(bus_name, path, "org.kde.KWallet", "isOpen", fn.g_variant_new_tuple(&name, 1), "(b)", deadline, error);
    if (reply == NULL) return false;
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    bool open = fn.g_variant_get_boolean(value) != 0;
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    return open;
}

CVaultSecret_Service *_Nullable CVaultSecret_ServiceGet(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    return (CVaultSecret_Service *)fn.secret_service_get_sync(
        CVAULTSECRET_SECRET_SERVICE_NONE, CANCELLABLE(deadline), GERROR_OUT(error));
}

void CVaultSecret_ServiceUnref(CVaultSecret_Service *_Nullable service) {
    if (service != NULL) fn.g_object_unref(service);
}

void CVaultSecret_ServiceReset(void) {
    fn.secret_service_disconnect();
}

CVaultSecret_Collection *_Nullable CVaultSecret_DefaultCollection(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    return (CVaultSecret_Collection *)fn.secret_collection_for_alias_sync(
        (struct CVaultSecret_SecretService *)service, "default", CVAULTSECRET_SECRET_COLLECTION_NONE,
        CANCELLABLE(deadline), GERROR_OUT(error));
}

const char *_Nonnull CVaultSecret_CollectionPath(CVaultSecret_Collection *_Nonnull collection) {
    return fn.g_dbus_proxy_get_object_path((struct CVaultSecret_GDBusProxy *)collection);
}

bool CVaultSecret_CollectionIsLocked(CVaultSecret_Collection *_Nonnull collection) {
    return fn.secret_collection_get_locked((struct CVaultSecret_SecretCollection *)collection) != 0;
}

bool CVaultSecret_CollectionUnlock(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Collection *_Nonnull collection,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    // A one-element list on the stack: libsecret only reads the objects it is given.
    CVaultSecret_GListLayout objects = {collection, NULL, NULL};
    int unlocked = fn.secret_service_unlock_sync(
        (struct CVaultSecret_SecretService *)service, &objects, CANCELLABLE(deadline), NULL, GERROR_OUT(error));
    return unlocked > 0;
}

int CVaultSecret_PathsUnlock(
    CVaultSecret_Service *_Nonnull service, char *_Nullable const *_Nonnull paths,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    char **unlocked = NULL;
    int count = fn.secret_service_unlock_dbus_paths_sync(
        (struct CVaultSecret_SecretService *)service, (const char **)paths, CANCELLABLE(deadline), &unlocked,
        GERROR_OUT(error));
    for (char **path = unlocked; path != NULL && *path != NULL; path++) fn.g_free(*path);
    fn.g_free(unlocked);
    return count;
}

void CVaultSecret_CollectionUnref(CVaultSecret_Collection *_Nullable collection) {
    if (collection != NULL) fn.g_object_unref(collection);
}

// MARK: Items

#define AS_ITEM(item) ((struct CVaultSecret_SecretItem *)(item))
#define AS_TABLE(attributes) ((struct CVaultSecret_GHashTable *)(attributes))

bool CVaultSecret_ItemDelete(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    return fn.secret_item_delete_sync(AS_ITEM(item), CANCELLABLE(deadline), GERROR_OUT(error));
}

void CVaultSecret_ItemUnref(CVaultSecret_Item *_Nullable item) {
    if (item != NULL) fn.g_object_unref(item);
}

// MARK: Items by object path

void CVaultSecret_PathsFree(char *_Nullable *_Nullable paths) {
    if (paths == NULL) return;
    for (char **path = paths; *path != NULL; path++) fn.g_free(*path);
    free(paths);
}

// A malloc'd NULL-terminated array of `count` entries, filled by the caller.
static char **new_paths(size_t count) {
    char **paths = calloc(count + 1, sizeof *paths);
    if (paths == NULL) abort();  // as GLib does when memory is exhausted
    return paths;
}

char *_Nullable *_Nullable CVaultSecret_SearchPaths(
    CVaultSecret_Attributes *_Nonnull attributes, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    // No schema, so items written by any tool match. Locked items are returned too (so "locked"
    // is never mistaken for "absent"); nothing is unlocked and nothing prompts. The first call of
    // an operation to the service, so it may start the provider, as libsecret's proxy may.
    struct CVaultSecret_GVariant *query = CVaultSecret_AttributesVariant(attributes);
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCall(
        "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "SearchItems",
        fn.g_variant_new_tuple(&query, 1), "(aoao)", CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *unlocked = fn.g_variant_get_child_value(reply, 0);
    struct CVaultSecret_GVariant *locked = fn.g_variant_get_child_value(reply, 1);
    size_t unlocked_count = fn.g_variant_n_children(unlocked), count = unlocked_count + fn.g_variant_n_children(locked);
    char **paths = new_paths(count);
    for (size_t index = 0; index < count; index++) {
        struct CVaultSecret_GVariant *element = index < unlocked_count
            ? fn.g_variant_get_child_value(unlocked, index)
            : fn.g_variant_get_child_value(locked, index - unlocked_count);
        paths[index] = fn.g_strdup(fn.g_variant_get_string(element, NULL));
        fn.g_variant_unref(element);
    }
    fn.g_variant_unref(locked);
    fn.g_variant_unref(unlocked);
    fn.g_variant_unref(reply);
    return paths;
}

// Every property of `interface` on the Secret Service's object at `path` (one Properties.GetAll
// through the shared connection): an a{sv} dictionary the caller releases with g_variant_unref,
// or NULL with *error set (or unset when not connected).
static struct CVaultSecret_GVariant *get_all(
    const char *path, const char *interface, CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string(interface);
    struct CVaultSecret_GVariant *reply = bus_call(
        "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "GetAll", fn.g_variant_new_tuple(&name, 1),
        "(a{sv})", deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *properties = fn.g_variant_get_child_value(reply, 0);
    fn.g_variant_unref(reply);
    return properties;
}

// The strings of an array-of-strings (or of object paths) variant, as new_paths allocates.
static char **strings_of(struct CVaultSecret_GVariant *array) {
    size_t count = array != NULL ? fn.g_variant_n_children(array) : 0;
    char **paths = new_paths(count);
    for (size_t index = 0; index < count; index++) {
        struct CVaultSecret_GVariant *element = fn.g_variant_get_child_value(array, index);
        paths[index] = fn.g_strdup(fn.g_variant_get_string(element, NULL));
        fn.g_variant_unref(element);
    }
    return paths;
}

// The property `name` of type `type` in an a{sv} dictionary, or NULL (owned by the caller).
#define LOOKUP(properties, name, type) \
    fn.g_variant_lookup_value(properties, name, (const struct CVaultSecret_GVariantType *)(type))

char *_Nullable *_Nullable CVaultSecret_CollectionPaths(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    struct CVaultSecret_GVariant *properties =
        get_all("/org/freedesktop/secrets", "org.freedesktop.Secret.Service", deadline, error);
    if (properties == NULL) return NULL;
    struct CVaultSecret_GVariant *collections = LOOKUP(properties, "Collections", "ao");
    char **paths = strings_of(collections);
    if (collections != NULL) fn.g_variant_unref(collections);
    fn.g_variant_unref(properties);
    return paths;
}

char *_Nullable *_Nullable CVaultSecret_CollectionItemPaths(
    const char *_Nonnull collection, CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    *locked = false;
    struct CVaultSecret_GVariant *properties = get_all(collection, "org.freedesktop.Secret.Collection", deadline, error);
    if (properties == NULL) return NULL;
    struct CVaultSecret_GVariant *flag = LOOKUP(properties, "Locked", "b");
    if (flag != NULL) {
        *locked = fn.g_variant_get_boolean(flag) != 0;
        fn.g_variant_unref(flag);
    }
    struct CVaultSecret_GVariant *items = LOOKUP(properties, "Items", "ao");
    char **paths = strings_of(items);
    if (items != NULL) fn.g_variant_unref(items);
    fn.g_variant_unref(properties);
    return paths;
}

char *_Nullable CVaultSecret_DefaultCollectionAtPath(
    CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked, CVaultSecret_Error *_Nullable *_Nonnull error) {
    *locked = false;
    struct CVaultSecret_GVariant *alias = fn.g_variant_new_string("default");
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCall(
        "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "ReadAlias",
        fn.g_variant_new_tuple(&alias, 1), "(o)", CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *child = fn.g_variant_get_child_value(reply, 0);
    const char *found = fn.g_variant_get_string(child, NULL);
    char *path = strcmp(found, "/") != 0 ? strdup(found) : NULL;  // "/": no default collection
    fn.g_variant_unref(child);
    fn.g_variant_unref(reply);
    if (path == NULL) return NULL;
    struct CVaultSecret_GVariant *arguments[2] = {
        fn.g_variant_new_string("org.freedesktop.Secret.Collection"), fn.g_variant_new_string("Locked")};
    reply = bus_call(
        "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "Get", fn.g_variant_new_tuple(arguments, 2),
        "(v)", deadline, error);
    if (reply == NULL) {
        free(path);
        return NULL;
    }
    struct CVaultSecret_GVariant *boxed = fn.g_variant_get_child_value(reply, 0);
    struct CVaultSecret_GVariant *value = fn.g_variant_get_variant(boxed);
    if (fn.g_variant_is_of_type(value, CVAULTSECRET_TYPE("b"))) {
        *locked = fn.g_variant_get_boolean(value) != 0;
    } else {
        // As GDBus words a reply of the wrong type, so that it reads as one.
        *error = (CVaultSecret_Error *)fn.g_error_new_literal(
            fn.g_quark_from_static_string("g-io-error-quark"), CVAULTSECRET_G_IO_ERROR_INVALID_ARGUMENT,
            "Property \u201cLocked\u201d of the default collection is not a boolean");
        free(path);
        path = NULL;
    }
    fn.g_variant_unref(value);
    fn.g_variant_unref(boxed);
    fn.g_variant_unref(reply);
    return path;
}

static uint64_t lookup_time(struct CVaultSecret_GVariant *properties, const char *name) {
    struct CVaultSecret_GVariant *value = LOOKUP(properties, name, "t");
    if (value == NULL) return 0;
    uint64_t seconds = fn.g_variant_get_uint64(value);
    fn.g_variant_unref(value);
    return seconds;
}

CVaultSecret_Attributes *_Nullable CVaultSecret_ItemRead(
    const char *_Nonnull path, CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked,
    uint64_t *_Nonnull created, uint64_t *_Nonnull modified, CVaultSecret_Error *_Nullable *_Nonnull error) {
    *locked = false;
    *created = 0;
    *modified = 0;
    struct CVaultSecret_GVariant *properties = get_all(path, "org.freedesktop.Secret.Item", deadline, error);
    if (properties == NULL) return NULL;
    struct CVaultSecret_GVariant *flag = LOOKUP(properties, "Locked", "b");
    if (flag != NULL) {
        *locked = fn.g_variant_get_boolean(flag) != 0;
        fn.g_variant_unref(flag);
    }
    *created = lookup_time(properties, "Created");
    *modified = lookup_time(properties, "Modified");
    CVaultSecret_Attributes *attributes = CVaultSecret_AttributesNew();
    struct CVaultSecret_GVariant *table = LOOKUP(properties, "Attributes", "a{ss}");
    size_t count = table != NULL ? fn.g_variant_n_children(table) : 0;
    for (size_t index = 0; index < count; index++) {
        struct CVaultSecret_GVariant *entry = fn.g_variant_get_child_value(table, index);
        struct CVaultSecret_GVariant *key = fn.g_variant_get_child_value(entry, 0);
        struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(entry, 1);
        CVaultSecret_AttributesSet(attributes, fn.g_variant_get_string(key, NULL), fn.g_variant_get_string(value, NULL));
        fn.g_variant_unref(value);
        fn.g_variant_unref(key);
        fn.g_variant_unref(entry);
    }
    if (table != NULL) fn.g_variant_unref(table);
    fn.g_variant_unref(properties);
    return attributes;
}

// The attributes as an a{ss} variant (floating).
struct CVaultSecret_GVariant *CVaultSecret_AttributesVariant(CVaultSecret_Attributes *attributes) {
    size_t count = 0;
    const char **names = CVaultSecret_AttributeNames(attributes, &count);
    struct CVaultSecret_GVariant **entries = calloc(count + 1, sizeof *entries);
    if (entries == NULL) abort();  // as GLib does when memory is exhausted
    for (size_t index = 0; index < count; index++) {
        const char *value = CVaultSecret_AttributesGet(attributes, names[index]);
        entries[index] = fn.g_variant_new_dict_entry(
            fn.g_variant_new_string(names[index]), fn.g_variant_new_string(value != NULL ? value : ""));
    }
    struct CVaultSecret_GVariant *array =
        fn.g_variant_new_array((const struct CVaultSecret_GVariantType *)"{ss}", entries, count);
    free(entries);
    CVaultSecret_AttributeNamesFree(names);
    return array;
}

// Calls `method` of the item at `path` with `arguments` (a floating tuple, consumed) through the
// shared connection; whether it succeeded (false with *error set, or unset when not connected).
static bool call_item(
    const char *path, const char *interface, const char *method, struct CVaultSecret_GVariant *arguments,
    CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    struct CVaultSecret_GVariant *reply =
        bus_call("org.freedesktop.secrets", path, interface, method, arguments, "()", deadline, error);
    if (reply == NULL) return false;
    fn.g_variant_unref(reply);
    return true;
}

bool CVaultSecret_ItemSetAttributesAtPath(
    const char *_Nonnull path, CVaultSecret_Attributes *_Nonnull attributes, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    struct CVaultSecret_GVariant *arguments[3] = {
        fn.g_variant_new_string("org.freedesktop.Secret.Item"),
        fn.g_variant_new_string("Attributes"),
        fn.g_variant_new_variant(CVaultSecret_AttributesVariant(attributes)),
    };
    return call_item(
        path, "org.freedesktop.DBus.Properties", "Set", fn.g_variant_new_tuple(arguments, 3), deadline, error);
}

CVaultSecret_Item *_Nullable CVaultSecret_ItemForPath(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull path, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    return (CVaultSecret_Item *)fn.secret_item_new_for_dbus_path_sync(
        (struct CVaultSecret_SecretService *)service, path, CVAULTSECRET_SECRET_ITEM_NONE, CANCELLABLE(deadline),
        GERROR_OUT(error));
}

// MARK: Attributes

CVaultSecret_Attributes *_Nonnull CVaultSecret_AttributesNew(void) {
    // Keys and values are g_strdup'ed copies that the table frees.
    return (CVaultSecret_Attributes *)fn.g_hash_table_new_full(
        fn.g_str_hash, fn.g_str_equal, fn.g_free, fn.g_free);
}

void CVaultSecret_AttributesSet(
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull name, const char *_Nonnull value) {
    fn.g_hash_table_insert(AS_TABLE(attributes), fn.g_strdup(name), fn.g_strdup(value));
}

const char *_Nullable CVaultSecret_AttributesGet(
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull name) {
    return fn.g_hash_table_lookup(AS_TABLE(attributes), name);
}

const char *_Nonnull *_Nonnull CVaultSecret_AttributeNames(
    CVaultSecret_Attributes *_Nonnull attributes, size_t *_Nonnull count) {
    unsigned int length = 0;
    void **names = fn.g_hash_table_get_keys_as_array(AS_TABLE(attributes), &length);
    *count = length;
    return (const char **)names;
}

void CVaultSecret_AttributeNamesFree(const char *_Nonnull *_Nullable names) {
    fn.g_free((void *)names);
}

void CVaultSecret_AttributesUnref(CVaultSecret_Attributes *_Nullable attributes) {
    if (attributes != NULL) fn.g_hash_table_unref(AS_TABLE(attributes));
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
