// libsecret's proxies, kept only where libsecret does what a plain call cannot: running a
// provider's prompt (unlock, approval) and deleting an item; and KWallet's own isOpen, asked of
// the collection a proxy names.
#define _GNU_SOURCE
#include <stdio.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn

#define AS_ITEM(item) ((struct CVaultSecret_SecretItem *)(item))

// MARK: KWallet

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
    struct CVaultSecret_GVariant *reply = CVaultSecret_BusCallNoStart(
        bus_name, path, "org.kde.KWallet", "isOpen", fn.g_variant_new_tuple(&name, 1), "(b)", deadline, error);
    if (reply == NULL) return false;
    struct CVaultSecret_GVariant *value = fn.g_variant_get_child_value(reply, 0);
    bool open = fn.g_variant_get_boolean(value) != 0;
    fn.g_variant_unref(value);
    fn.g_variant_unref(reply);
    return open;
}

// MARK: Service and collections

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

bool CVaultSecret_ItemDelete(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    return fn.secret_item_delete_sync(AS_ITEM(item), CANCELLABLE(deadline), GERROR_OUT(error));
}

void CVaultSecret_ItemUnref(CVaultSecret_Item *_Nullable item) {
    if (item != NULL) fn.g_object_unref(item);
}

CVaultSecret_Item *_Nullable CVaultSecret_ItemForPath(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull path, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    return (CVaultSecret_Item *)fn.secret_item_new_for_dbus_path_sync(
        (struct CVaultSecret_SecretService *)service, path, CVAULTSECRET_SECRET_ITEM_NONE, CANCELLABLE(deadline),
        GERROR_OUT(error));
}
