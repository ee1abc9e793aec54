// Attribute tables: GLib hash tables of copied strings, which Swift cannot build itself.
#define _GNU_SOURCE

#include "shim_internal.h"

#define fn CVaultSecret_fn

#define AS_TABLE(attributes) ((struct CVaultSecret_GHashTable *)(attributes))

CVaultSecret_Attributes *_Nonnull CVaultSecret_AttributesNew(void) {
    // Keys and values are g_strdup'ed copies that the table frees.
    return (CVaultSecret_Attributes *)fn.g_hash_table_new_full(fn.g_str_hash, fn.g_str_equal, fn.g_free, fn.g_free);
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
