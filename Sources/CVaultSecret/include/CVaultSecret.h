// CVaultSecret: the C edge of vault's Secret Service store.
//
// The shim exists for what Swift cannot do itself:
//   - load libsecret at run time (dlopen/dlsym), so vault has no link-time dependency on
//     libsecret or GLib and still runs where they are absent;
//   - build and walk GLib hash tables and lists, read GError, and hold a GCancellable;
//   - bound every blocking libsecret call with a deadline (a watchdog thread that cancels).
// It holds no policy: which items to touch and what errors mean is decided in Swift
// (Sources/VaultCore/SecretService/SecretServiceStore.swift, the only importer).
//
// Ownership: every function that returns an object says how to release it. Objects are
// GLib/libsecret objects behind incomplete types; Swift sees them as OpaquePointer.
// Calls other than CVaultSecret_Load require a successful CVaultSecret_Load first.
#ifndef CVAULTSECRET_H
#define CVAULTSECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A GError. Release with CVaultSecret_ErrorFree.
typedef struct CVaultSecret_Error CVaultSecret_Error;
/// A deadline for one store operation: a GCancellable that a watchdog thread cancels when the
/// time is up. Every blocking call below takes one. Release with CVaultSecret_DeadlineFinish.
typedef struct CVaultSecret_Deadline CVaultSecret_Deadline;
/// A SecretService proxy. Release with CVaultSecret_ServiceUnref.
typedef struct CVaultSecret_Service CVaultSecret_Service;
/// A SecretCollection proxy. Release with CVaultSecret_CollectionUnref.
typedef struct CVaultSecret_Collection CVaultSecret_Collection;
/// A SecretItem proxy. Release with CVaultSecret_ItemUnref.
typedef struct CVaultSecret_Item CVaultSecret_Item;
/// A GHashTable of UTF-8 attribute names to values. Release with CVaultSecret_AttributesUnref.
typedef struct CVaultSecret_Attributes CVaultSecret_Attributes;
/// A SecretValue: secret bytes and a content type. Release with CVaultSecret_ValueWipeAndUnref.
typedef struct CVaultSecret_Value CVaultSecret_Value;

// MARK: Loading

/// Loads `soname` (normally "libsecret-1.so.0") with dlopen and resolves every function the
/// shim uses. Safe to call more than once and from any thread; the first library that loads
/// completely is the one used. Returns NULL on success, or the loader's reason (dlerror) as a
/// malloc'd string that the caller frees with free(). A relative path (a '/' not at the start)
/// is refused without being opened.
char *_Nullable CVaultSecret_Load(const char *_Nonnull soname);

// MARK: Errors

/// The error's domain as a string, e.g. "g-dbus-error-quark". Static: never freed.
const char *_Nonnull CVaultSecret_ErrorDomain(const CVaultSecret_Error *_Nonnull error);
/// The error's code within its domain.
int32_t CVaultSecret_ErrorCode(const CVaultSecret_Error *_Nonnull error);
/// The error's message, owned by the error.
const char *_Nonnull CVaultSecret_ErrorMessage(const CVaultSecret_Error *_Nonnull error);
/// Frees the error (g_error_free). NULL is ignored.
void CVaultSecret_ErrorFree(CVaultSecret_Error *_Nullable error);

// MARK: Deadline

/// Starts a watchdog that cancels the deadline's GCancellable after `seconds`. Returns NULL
/// (with errno set) if the thread cannot be started. Finish it with CVaultSecret_DeadlineFinish.
CVaultSecret_Deadline *_Nullable CVaultSecret_DeadlineStart(double seconds);
/// Whether the watchdog has fired, i.e. calls made under this deadline were cancelled by it.
bool CVaultSecret_DeadlineExpired(CVaultSecret_Deadline *_Nonnull deadline);
/// Stops the watchdog, waits for its thread, frees the deadline. Returns whether it fired.
bool CVaultSecret_DeadlineFinish(CVaultSecret_Deadline *_Nonnull deadline);

// MARK: Service and collections
// Blocking calls: each returns NULL/false with *error set (caller frees) on failure.

/// Connects to the D-Bus session bus (g_bus_get_sync) and stops GLib from ending the process
/// if that connection closes. Call it before CVaultSecret_ServiceGet. Returns false on failure.
bool CVaultSecret_SessionBusConnect(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// The shared SecretService proxy (secret_service_get_sync, no session, no collections
/// loaded). The caller owns the returned reference.
CVaultSecret_Service *_Nullable CVaultSecret_ServiceGet(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
void CVaultSecret_ServiceUnref(CVaultSecret_Service *_Nullable service);

/// The collection behind the "default" alias. Returns NULL with *error still NULL if the
/// service has no default collection. The caller owns the returned reference.
CVaultSecret_Collection *_Nullable CVaultSecret_DefaultCollection(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
bool CVaultSecret_CollectionIsLocked(CVaultSecret_Collection *_Nonnull collection);
void CVaultSecret_CollectionUnref(CVaultSecret_Collection *_Nullable collection);

// MARK: Items

/// Finds the items, locked or not, in every collection whose attributes include all of
/// `attributes` (no schema: items of any schema match). Never unlocks and never prompts.
/// Returns a malloc'd array of *count item references, each owned by the caller
/// (CVaultSecret_ItemUnref), the array itself freed with free(). On failure returns NULL with
/// *error set; when nothing matches returns NULL with *count == 0 and *error NULL.
CVaultSecret_Item *_Nonnull *_Nullable CVaultSecret_Search(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Attributes *_Nonnull attributes,
    CVaultSecret_Deadline *_Nonnull deadline, size_t *_Nonnull count,
    CVaultSecret_Error *_Nullable *_Nonnull error);
bool CVaultSecret_ItemIsLocked(CVaultSecret_Item *_Nonnull item);
/// The item's attributes: a new reference the caller releases with CVaultSecret_AttributesUnref,
/// or NULL if the service sent none.
CVaultSecret_Attributes *_Nullable CVaultSecret_ItemAttributes(CVaultSecret_Item *_Nonnull item);
/// Creation and modification times in seconds since 1970, or 0 if unknown.
uint64_t CVaultSecret_ItemCreated(CVaultSecret_Item *_Nonnull item);
uint64_t CVaultSecret_ItemModified(CVaultSecret_Item *_Nonnull item);
/// Fetches the item's secret from the service. The caller owns the returned value and
/// releases it with CVaultSecret_ValueWipeAndUnref; NULL with *error set on failure.
CVaultSecret_Value *_Nullable CVaultSecret_ItemCopySecret(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// Creates an item in `collection` (never replacing one). The caller owns the result.
CVaultSecret_Item *_Nullable CVaultSecret_ItemCreate(
    CVaultSecret_Collection *_Nonnull collection, CVaultSecret_Attributes *_Nonnull attributes,
    const char *_Nonnull label,
    CVaultSecret_Value *_Nonnull value, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// Replaces the item's secret in place.
bool CVaultSecret_ItemSetSecret(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Value *_Nonnull value,
    CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// Replaces the item's attributes in place (exactly `attributes`; no schema attribute added).
bool CVaultSecret_ItemSetAttributes(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Attributes *_Nonnull attributes,
    CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
bool CVaultSecret_ItemDelete(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
void CVaultSecret_ItemUnref(CVaultSecret_Item *_Nullable item);

// MARK: Values

/// A value holding a copy of `length` bytes (NUL bytes allowed). The copy is wiped when the
/// value is freed. Returns NULL if memory is exhausted. Release with
/// CVaultSecret_ValueWipeAndUnref.
CVaultSecret_Value *_Nullable CVaultSecret_ValueNew(
    const uint8_t *_Nullable bytes, size_t length, const char *_Nonnull contentType);
/// The value's bytes and length, owned by the value; valid until it is released.
const uint8_t *_Nonnull CVaultSecret_ValueBytes(CVaultSecret_Value *_Nonnull value, size_t *_Nonnull length);
/// Overwrites the value's bytes with zeros, then drops the caller's reference. Use it for every
/// value, so a secret read from the service does not linger in freed memory.
void CVaultSecret_ValueWipeAndUnref(CVaultSecret_Value *_Nullable value);

// MARK: Attributes

/// An empty attribute table that copies the names and values put into it.
CVaultSecret_Attributes *_Nonnull CVaultSecret_AttributesNew(void);
/// Sets `name` to `value` (both copied).
void CVaultSecret_AttributesSet(
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull name, const char *_Nonnull value);
/// The value of `name`, owned by the table, or NULL.
const char *_Nullable CVaultSecret_AttributesGet(
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull name);
/// The attribute names, owned by the table, in a NULL-terminated array of *count entries that
/// the caller frees with CVaultSecret_AttributeNamesFree (the names themselves are not freed).
const char *_Nonnull *_Nonnull CVaultSecret_AttributeNames(
    CVaultSecret_Attributes *_Nonnull attributes, size_t *_Nonnull count);
void CVaultSecret_AttributeNamesFree(const char *_Nonnull *_Nullable names);
void CVaultSecret_AttributesUnref(CVaultSecret_Attributes *_Nullable attributes);

#endif
