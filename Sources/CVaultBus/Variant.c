// GVariant's reading and building for Swift, which cannot call GLib's variadic g_variant_new and
// g_variant_get, nor reach functions loaded at run time. Thin: each is one GLib call.
#include "CVaultBus.h"
#include "shim_internal.h"

#define G(value) ((struct CVaultBus_GVariant *)(void *)(value))
#define OURS(value) ((CVaultBus_Variant *)(void *)(value))
#define TYPE(string) ((const struct CVaultBus_GVariantType *)(const void *)(string))

const char *_Nonnull CVaultBus_VariantType(CVaultBus_Variant *_Nonnull value) {
    return fn.g_variant_get_type_string(G(value));
}

size_t CVaultBus_VariantCount(CVaultBus_Variant *_Nonnull value) {
    return fn.g_variant_n_children(G(value));
}

CVaultBus_Variant *_Nonnull CVaultBus_VariantChild(CVaultBus_Variant *_Nonnull value, size_t index) {
    return OURS(fn.g_variant_get_child_value(G(value), index));
}

const char *_Nonnull CVaultBus_VariantString(CVaultBus_Variant *_Nonnull value, size_t *_Nonnull length) {
    return fn.g_variant_get_string(G(value), length);
}

bool CVaultBus_VariantBoolean(CVaultBus_Variant *_Nonnull value) {
    return fn.g_variant_get_boolean(G(value)) != 0;
}

uint32_t CVaultBus_VariantUInt32(CVaultBus_Variant *_Nonnull value) {
    return fn.g_variant_get_uint32(G(value));
}

uint64_t CVaultBus_VariantUInt64(CVaultBus_Variant *_Nonnull value) {
    return fn.g_variant_get_uint64(G(value));
}

const uint8_t *_Nullable CVaultBus_VariantBytes(CVaultBus_Variant *_Nonnull value, size_t *_Nonnull length) {
    return fn.g_variant_get_fixed_array(G(value), length, 1);
}

CVaultBus_Variant *_Nonnull CVaultBus_VariantInner(CVaultBus_Variant *_Nonnull value) {
    return OURS(fn.g_variant_get_variant(G(value)));
}

void CVaultBus_VariantUnref(CVaultBus_Variant *_Nonnull value) {
    fn.g_variant_unref(G(value));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildString(const char *_Nonnull text) {
    return OURS(fn.g_variant_new_string(text));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildObjectPath(const char *_Nonnull path) {
    return OURS(fn.g_variant_new_object_path(path));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildBoolean(bool value) {
    return OURS(fn.g_variant_new_boolean(value));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildUInt32(uint32_t value) {
    return OURS(fn.g_variant_new_uint32(value));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildUInt64(uint64_t value) {
    return OURS(fn.g_variant_new_uint64(value));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildBytes(const uint8_t *_Nullable bytes, size_t length) {
    static const uint8_t none = 0;
    return OURS(fn.g_variant_new_fixed_array(TYPE("y"), bytes != NULL ? bytes : &none, length, 1));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildArray(
    const char *_Nonnull element, CVaultBus_Variant *_Nonnull const *_Nullable values, size_t count) {
    return OURS(fn.g_variant_new_array(TYPE(element), (struct CVaultBus_GVariant *const *)values, count));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildTuple(CVaultBus_Variant *_Nonnull const *_Nullable values, size_t count) {
    return OURS(fn.g_variant_new_tuple((struct CVaultBus_GVariant *const *)values, count));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildDictEntry(
    CVaultBus_Variant *_Nonnull key, CVaultBus_Variant *_Nonnull value) {
    return OURS(fn.g_variant_new_dict_entry(G(key), G(value)));
}

CVaultBus_Variant *_Nonnull CVaultBus_BuildVariant(CVaultBus_Variant *_Nonnull value) {
    return OURS(fn.g_variant_new_variant(G(value)));
}

bool CVaultBus_TypeIsValid(const char *_Nonnull type) {
    return fn.g_variant_type_string_is_valid(type) != 0;
}
