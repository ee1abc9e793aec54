// Items by object path: searches, properties and attribute changes as plain D-Bus calls on the
// shared connection, with no libsecret proxy (see include/CVaultSecret.h, "Items by object path").
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn

// MARK: Items by object path

void CVaultSecret_PathsFree(char *_Nullable *_Nullable paths) {
    if (paths == NULL) return;
    for (char **path = paths; *path != NULL; path++) fn.g_free(*path);
    free(paths);
}

char **CVaultSecret_NewStrings(size_t count) {
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
        CVAULTSECRET_SECRETS, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, "SearchItems",
        fn.g_variant_new_tuple(&query, 1), "(aoao)", CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *unlocked = fn.g_variant_get_child_value(reply, 0);
    struct CVaultSecret_GVariant *locked = fn.g_variant_get_child_value(reply, 1);
    size_t unlocked_count = fn.g_variant_n_children(unlocked), count = unlocked_count + fn.g_variant_n_children(locked);
    char **paths = CVaultSecret_NewStrings(count);
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
static struct CVaultSecret_GVariant *
get_all(const char *path, const char *interface, CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    struct CVaultSecret_GVariant *name = fn.g_variant_new_string(interface);
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCallNoStart(
        CVAULTSECRET_SECRETS, path, CVAULTSECRET_PROPERTIES_INTERFACE, "GetAll", fn.g_variant_new_tuple(&name, 1),
        "(a{sv})", deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *properties = fn.g_variant_get_child_value(reply, 0);
    fn.g_variant_unref(reply);
    return properties;
}

// The strings of an array-of-strings (or of object paths) variant, as CVaultSecret_NewStrings allocates.
static char **strings_of(struct CVaultSecret_GVariant *array) {
    size_t count = array != NULL ? fn.g_variant_n_children(array) : 0;
    char **paths = CVaultSecret_NewStrings(count);
    for (size_t index = 0; index < count; index++) {
        struct CVaultSecret_GVariant *element = fn.g_variant_get_child_value(array, index);
        paths[index] = fn.g_strdup(fn.g_variant_get_string(element, NULL));
        fn.g_variant_unref(element);
    }
    return paths;
}

// The property `name` of type `type` in an a{sv} dictionary, or NULL (owned by the caller).
#define LOOKUP(properties, name, type) fn.g_variant_lookup_value(properties, name, CVAULTSECRET_TYPE(type))

char *_Nullable *_Nullable CVaultSecret_CollectionPaths(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    struct CVaultSecret_GVariant *properties =
        get_all(CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, deadline, error);
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
    struct CVaultSecret_GVariant *properties = get_all(collection, CVAULTSECRET_COLLECTION_INTERFACE, deadline, error);
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
        CVAULTSECRET_SECRETS, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, "ReadAlias",
        fn.g_variant_new_tuple(&alias, 1), "(o)", CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, deadline, error);
    if (reply == NULL) return NULL;
    struct CVaultSecret_GVariant *child = fn.g_variant_get_child_value(reply, 0);
    const char *found = fn.g_variant_get_string(child, NULL);
    char *path = strcmp(found, "/") != 0 ? strdup(found) : NULL;  // "/": no default collection
    fn.g_variant_unref(child);
    fn.g_variant_unref(reply);
    if (path == NULL) return NULL;
    struct CVaultSecret_GVariant *arguments[2] = {
        fn.g_variant_new_string(CVAULTSECRET_COLLECTION_INTERFACE), fn.g_variant_new_string("Locked")};
    reply = CVaultSecret_BusCallNoStart(
        CVAULTSECRET_SECRETS, path, CVAULTSECRET_PROPERTIES_INTERFACE, "Get", fn.g_variant_new_tuple(arguments, 2),
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
    struct CVaultSecret_GVariant *properties = get_all(path, CVAULTSECRET_ITEM_INTERFACE, deadline, error);
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
        CVaultSecret_AttributesSet(
            attributes, fn.g_variant_get_string(key, NULL), fn.g_variant_get_string(value, NULL));
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
    struct CVaultSecret_GVariant *array = fn.g_variant_new_array(CVAULTSECRET_TYPE("{ss}"), entries, count);
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
        CVaultSecret_BusCallNoStart(CVAULTSECRET_SECRETS, path, interface, method, arguments, "()", deadline, error);
    if (reply == NULL) return false;
    fn.g_variant_unref(reply);
    return true;
}

bool CVaultSecret_ItemSetAttributesAtPath(
    const char *_Nonnull path, CVaultSecret_Attributes *_Nonnull attributes, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    struct CVaultSecret_GVariant *arguments[3] = {
        fn.g_variant_new_string(CVAULTSECRET_ITEM_INTERFACE),
        fn.g_variant_new_string("Attributes"),
        fn.g_variant_new_variant(CVaultSecret_AttributesVariant(attributes)),
    };
    return call_item(
        path, CVAULTSECRET_PROPERTIES_INTERFACE, "Set", fn.g_variant_new_tuple(arguments, 3), deadline, error);
}
