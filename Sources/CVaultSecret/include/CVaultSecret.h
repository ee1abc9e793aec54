// CVaultSecret: the C edge of vault's Secret Service store.
//
// The shim exists for what Swift cannot do itself:
//   - load libsecret at run time (dlopen/dlsym), so vault has no link-time dependency on
//     libsecret or GLib and still runs where they are absent;
//   - build and walk GLib hash tables and lists, read GError, and hold a GCancellable;
//   - bound every blocking libsecret call with a deadline (a watchdog thread that cancels);
//   - hold the session with the Secret Service and its key agreement's big-number arithmetic
//     (Session.c and KeyAgreement.c, with libgcrypt, which libsecret loads);
//   - read an item without libsecret or GLib, over sd-bus (DirectRead.c, libsystemd loaded at
//     run time as libsecret is).
// It holds no policy and no cipher: which items to touch, what errors mean and the session's
// encryption are Swift's (Sources/VaultSecretService: SecretServiceCall.swift,
// SecretServiceResources.swift, SecretServiceSession.swift and SecretServiceDirectRead.swift are
// the only importers).
//
// Ownership: every function that returns an object says how to release it. Objects are
// GLib/libsecret objects behind incomplete types; Swift sees them as OpaquePointer.
// Calls other than CVaultSecret_Load require a successful CVaultSecret_Load first, except those
// of the provider's half of the key agreement and of the direct read, which say what they need.
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

// MARK: Loading

/// Loads `soname` (normally "libsecret-1.so.0") with dlopen and resolves every function the
/// shim uses. Safe to call more than once and from any thread; the first library that loads
/// completely is the one used. Returns NULL on success, or the loader's reason (dlerror) as a
/// malloc'd string that the caller frees with free(). A relative path (a '/' not at the start)
/// is refused without being opened.
char *_Nullable CVaultSecret_Load(const char *_Nonnull soname);
/// Whether a library has been loaded by CVaultSecret_Load. Thread-safe.
bool CVaultSecret_IsLoaded(void);

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
/// Drops the session (and libsecret's shared service, secret_service_disconnect), so that the
/// next transfer of a secret negotiates a fresh session key.
void CVaultSecret_SessionReset(void);

/// The process id of the program that owns org.freedesktop.secrets on the session bus (the
/// bus's GetConnectionUnixProcessID), so that `vault doctor` can name the provider. Call it after
/// CVaultSecret_SessionBusConnect. Returns false with *error set on failure.
bool CVaultSecret_ProviderProcessID(
    CVaultSecret_Deadline *_Nonnull deadline, uint32_t *_Nonnull pid, CVaultSecret_Error *_Nullable *_Nonnull error);

/// The unique name of the connection that owns `name` on the session bus now (GetNameOwner, which
/// never starts a service), and the uid and process id the bus knows for that connection
/// (GetConnectionUnixUser, GetConnectionUnixProcessID): malloc'd, the caller frees it with free().
/// A call addressed to the unique name reaches that connection or none, even if the well-known
/// name changes hands meanwhile. NULL with *error set on failure (org.freedesktop.DBus.Error.
/// NameHasNoOwner when nothing owns it). Call after CVaultSecret_SessionBusConnect.
char *_Nullable CVaultSecret_NameOwner(
    const char *_Nonnull name, uint32_t *_Nonnull uid, uint32_t *_Nonnull pid, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// Calls `method` of `interface` at `path` on the connection `destination`, never starting a
/// service, with one argument of type ay (`length` bytes of `bytes`, copied into GLib's message,
/// which GLib frees without wiping) or none when `bytes` is NULL, followed by one of type t
/// (`*number`) unless `number` is NULL, and expects an empty reply. False with *error set on
/// failure. Call after CVaultSecret_SessionBusConnect.
bool CVaultSecret_CallWithBytes(
    const char *_Nonnull destination, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull method, const uint8_t *_Nullable bytes, size_t length, const uint64_t *_Nullable number,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);

/// Whether KWallet (kwalletd5 or kwalletd6, on the session bus) has the wallet behind
/// `collection` open: then its unlock prompt completes without asking anyone. Its own
/// interface's isOpen(label); false with *error NULL if the answer is no or no such wallet.
bool CVaultSecret_KWalletIsOpen(
    CVaultSecret_Collection *_Nonnull collection, const char *_Nonnull kwalletd,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);

/// The collection behind the "default" alias. Returns NULL with *error still NULL if the
/// service has no default collection. The caller owns the returned reference.
CVaultSecret_Collection *_Nullable CVaultSecret_DefaultCollection(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// The collection's object path, owned by the collection.
const char *_Nonnull CVaultSecret_CollectionPath(CVaultSecret_Collection *_Nonnull collection);
bool CVaultSecret_CollectionIsLocked(CVaultSecret_Collection *_Nonnull collection);
/// Asks the service to unlock the collection and runs the prompt it returns, if any
/// (secret_service_unlock_sync). A provider that needs no one (KWallet with its wallet already
/// open) completes the prompt at once; otherwise the prompt waits for a person until the
/// deadline fires, and libsecret then dismisses it. Returns whether the collection was unlocked;
/// false with *error set on failure, false with *error NULL if the prompt was dismissed.
bool CVaultSecret_CollectionUnlock(
    CVaultSecret_Service *_Nonnull service, CVaultSecret_Collection *_Nonnull collection,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
void CVaultSecret_CollectionUnref(CVaultSecret_Collection *_Nullable collection);
/// Asks the service to unlock the objects (items or collections) at the NULL-terminated `paths`
/// and runs the prompt it returns, if any (secret_service_unlock_dbus_paths_sync): KeePassXC asks
/// its user to approve the client's access to each item there. Waits for the prompt until the
/// deadline fires; libsecret then dismisses it. Returns how many objects are unlocked now (a
/// dismissed or denied prompt unlocks none), or a negative number with *error set on failure.
int CVaultSecret_PathsUnlock(
    CVaultSecret_Service *_Nonnull service, char *_Nullable const *_Nonnull paths,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
// MARK: Items

bool CVaultSecret_ItemDelete(
    CVaultSecret_Item *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
void CVaultSecret_ItemUnref(CVaultSecret_Item *_Nullable item);

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

// MARK: Items by object path
// The fast path: an item is its D-Bus object path, its properties are read with one
// Properties.GetAll, its secret with one GetSecrets, and it is changed with one Properties.Set and
// one SetSecret, where a libsecret item proxy costs five calls (match rules, name owner, GetAll)
// before it is used and two (match rules) after. A proxy is made only to delete an item.

/// Frees an array of object paths returned below (each path, then the array). NULL is ignored.
void CVaultSecret_PathsFree(char *_Nullable *_Nullable paths);
/// The paths of the items, locked or not, whose attributes include all of `attributes` (one
/// SearchItems, which may start the provider): a NULL-terminated array the caller frees with
/// CVaultSecret_PathsFree, unlocked items first. NULL with *error set on failure. Call after
/// CVaultSecret_SessionBusConnect.
char *_Nullable *_Nullable CVaultSecret_SearchPaths(
    CVaultSecret_Attributes *_Nonnull attributes, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// The paths of every collection the service has (its Collections property, read now), as
/// CVaultSecret_SearchPaths returns them. Call after CVaultSecret_SessionBusConnect.
char *_Nullable *_Nullable CVaultSecret_CollectionPaths(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// The paths of the items of the collection at `collection` and whether it is locked (its
/// Items and Locked properties, read now), as CVaultSecret_SearchPaths returns them.
char *_Nullable *_Nullable CVaultSecret_CollectionItemPaths(
    const char *_Nonnull collection, CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// The path of the collection behind the "default" alias (one ReadAlias, which may start the
/// provider) and whether it is locked (one Properties.Get), with no libsecret proxy: malloc'd,
/// the caller frees it with free(). NULL with *error NULL if there is no default collection;
/// NULL with *error set on failure. Call after CVaultSecret_SessionBusConnect.
char *_Nullable CVaultSecret_DefaultCollectionAtPath(
    CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked, CVaultSecret_Error *_Nullable *_Nonnull error);
/// The properties of the item at `path` in one call: whether it is locked, its creation and
/// modification times (seconds since 1970, 0 if unknown), and its attributes, returned as a
/// new table the caller releases with CVaultSecret_AttributesUnref. NULL with *error set on
/// failure. Call after CVaultSecret_SessionBusConnect.
CVaultSecret_Attributes *_Nullable CVaultSecret_ItemRead(
    const char *_Nonnull path, CVaultSecret_Deadline *_Nonnull deadline, bool *_Nonnull locked,
    uint64_t *_Nonnull created, uint64_t *_Nonnull modified, CVaultSecret_Error *_Nullable *_Nonnull error);
// MARK: The session and the secrets that travel through it (Session.c, KeyAgreement.c)
// One session per process, opened on first use and kept (as libsecret keeps its service's):
// the spec's dh-ietf1024-sha256-aes128-cbc-pkcs7 key agreement, or "plain" where the provider
// answers that it supports no encryption. Errors the session makes itself (an invalid key from
// the provider, no agreement) have the domain "vault-secret-session-error". The shim does the
// agreement's modular exponentiation (libgcrypt: Swift has no public big numbers) and moves the
// Secret struct's bytes as they are; the session key's derivation (HKDF-SHA256) and the secrets'
// encryption (AES-128-CBC, PKCS#7) are swift-crypto's, in Swift.

/// Opens the session unless it is open. Connects to the bus first if need be. False with *error
/// set on failure (a provider that cannot encrypt, as KWallet without QCA's OpenSSL plug-in,
/// fails here).
bool CVaultSecret_SessionOpen(CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// A session being opened on a thread of its own. Finish it with CVaultSecret_SessionOpenFinish.
typedef struct CVaultSecret_SessionOpening CVaultSecret_SessionOpening;
/// Starts CVaultSecret_SessionOpen on a thread of its own (unless the session is open), so that
/// the key agreement (mostly computation, here and in the provider) overlaps the connection and
/// search that an operation makes meanwhile. `deadline` must outlive
/// CVaultSecret_SessionOpenFinish. Returns NULL (with errno set) if the thread cannot start;
/// then the session opens when first needed.
CVaultSecret_SessionOpening *_Nullable CVaultSecret_SessionOpenStart(CVaultSecret_Deadline *_Nonnull deadline);
/// Waits for the thread and frees `opening`: CVaultSecret_SessionOpen's result and error.
bool CVaultSecret_SessionOpenFinish(
    CVaultSecret_SessionOpening *_Nonnull opening, CVaultSecret_Error *_Nullable *_Nonnull error);
/// The process's session, copied for one transfer (opened if need be). Release with
/// CVaultSecret_SessionFree, which wipes it. NULL with *error set on failure.
typedef struct CVaultSecret_Session CVaultSecret_Session;
CVaultSecret_Session *_Nullable CVaultSecret_SessionCopy(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// Wipes the copy and frees it. NULL is ignored.
void CVaultSecret_SessionFree(CVaultSecret_Session *_Nullable session);
/// Whether the provider offers no encryption: then secrets travel as they are.
bool CVaultSecret_SessionIsPlain(const CVaultSecret_Session *_Nonnull session);
/// The key agreement's shared secret, CVAULTSECRET_GROUP_BYTES big-endian bytes owned by the
/// session (zeros in a plain session): what the session key is derived from.
const uint8_t *_Nonnull CVaultSecret_SessionSharedSecret(const CVaultSecret_Session *_Nonnull session);
/// The size of the group's numbers (the 1024-bit MODP group), and so of the shared secret.
#define CVAULTSECRET_GROUP_BYTES 128

// MARK: The provider's half of the key agreement (vault secret-service serve)

/// Loads libgcrypt by `soname` (normally "libgcrypt.so.20") for CVaultSecret_Respond, where
/// libsecret, which otherwise brings it, need not be loaded. NULL on success (also when libgcrypt
/// came with libsecret before); else the reason, malloc'd, for the caller to free().
char *_Nullable CVaultSecret_LoadGcrypt(const char *_Nonnull soname);

typedef enum {
    CVAULTSECRET_RESPONSE_AGREED,
    CVAULTSECRET_RESPONSE_INVALID_PEER,  // the client's public value is not in 2..p-2
    CVAULTSECRET_RESPONSE_FAILED,  // no key pair could be made
} CVaultSecret_Response;

/// The provider's answer to a client's public value `peer` (`length` big-endian bytes, any number
/// of leading zeros): a fresh key pair whose public value is written to `public_value`, and the
/// shared secret, written to `shared` (both CVAULTSECRET_GROUP_BYTES bytes, big-endian) when
/// AGREED, wiped otherwise. Key pairs whose shared secret would start with a zero byte are drawn
/// again, so that clients that keep and clients that drop that byte derive the same key. Requires
/// libgcrypt (CVaultSecret_Load or CVaultSecret_LoadGcrypt). Thread-safe.
CVaultSecret_Response CVaultSecret_Respond(
    const uint8_t *_Nonnull peer, size_t length, uint8_t public_value[_Nonnull CVAULTSECRET_GROUP_BYTES],
    uint8_t shared[_Nonnull CVAULTSECRET_GROUP_BYTES]);

/// A Secret struct's bytes as the provider sent them: its parameters (AES's initialization vector;
/// empty in a plain session) and its value (encrypted; the secret itself in a plain session).
/// Both are malloc'd; CVaultSecret_SecretBytesFree wipes and frees them.
typedef struct CVaultSecret_SecretBytes {
    uint8_t *_Nullable parameters;
    size_t parametersLength;
    uint8_t *_Nullable value;
    size_t valueLength;
} CVaultSecret_SecretBytes;
/// The secret of the item at `path` (one GetSecrets through `session`) into *secret. False with
/// *error set on failure; false with *error unset when the provider sent no secret (it holds the
/// item back, or lost the session). Release *secret with CVaultSecret_SecretBytesFree either way.
bool CVaultSecret_SecretForPath(
    const char *_Nonnull path, const CVaultSecret_Session *_Nonnull session, CVaultSecret_SecretBytes *_Nonnull secret,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// Wipes and frees the bytes, and empties *secret.
void CVaultSecret_SecretBytesFree(CVaultSecret_SecretBytes *_Nonnull secret);
/// Replaces the secret of the item at `path` (one SetSecret through `session`) with the
/// `parameters` and `value` made for that session, of content type `contentType`. False with
/// *error set on failure.
bool CVaultSecret_ItemSetSecretAtPath(
    const char *_Nonnull path, const CVaultSecret_Session *_Nonnull session, const uint8_t *_Nullable parameters,
    size_t parametersLength, const uint8_t *_Nullable value, size_t valueLength, const char *_Nonnull contentType,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error);
/// Creates an item in the collection at `collection` (one CreateItem, never replacing an item)
/// with `attributes`, `label` and the secret (made for `session`, as for
/// CVaultSecret_ItemSetSecretAtPath), and runs the prompt the provider may answer with
/// (KeePassXC always does). True once created, with *item set to the new item's path (malloc'd,
/// the caller frees it with free()), or NULL if the provider did not name it; false with *error
/// set on failure, or with *prompted set when the prompt was dismissed (by someone, or when the
/// deadline fired).
bool CVaultSecret_ItemCreate(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull collection,
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull label,
    const CVaultSecret_Session *_Nonnull session, const uint8_t *_Nullable parameters, size_t parametersLength,
    const uint8_t *_Nullable value, size_t valueLength, const char *_Nonnull contentType, bool *_Nonnull prompted,
    char *_Nullable *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);

// MARK: Changing items by object path

/// Replaces the attributes of the item at `path` (its Attributes property, set with one
/// Properties.Set): exactly `attributes` (no schema attribute added).
/// Call after CVaultSecret_SessionBusConnect. False with *error set on failure.
bool CVaultSecret_ItemSetAttributesAtPath(
    const char *_Nonnull path, CVaultSecret_Attributes *_Nonnull attributes, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);
/// A proxy for the item at `path`, to change or delete it. The caller owns the result
/// (CVaultSecret_ItemUnref).
CVaultSecret_Item *_Nullable CVaultSecret_ItemForPath(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull path, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error);

// MARK: The direct read (DirectRead.c)
// A read's calls over sd-bus (libsystemd), on a connection of its own, without libsecret or
// GLib: OpenSession (sent at once, so that the provider's half of the key agreement overlaps the
// search), SearchItems, each item's properties, GetSecrets. None of these needs CVaultSecret_Load;
// they need CVaultSecret_LoadSdBus and CVaultSecret_LoadGcrypt. Every call is bounded by the
// deadline given to CVaultSecret_DirectOpen. Anything else than the expected reply (an error, a
// reply of another shape, a session without encryption, a secret the reply leaves out) is
// UNUSABLE: the caller then reads through the libsecret functions above, which decide what that
// reply means.

/// Loads `soname` (normally "libsystemd.so.0") for the direct read. Safe to call more than once
/// and from any thread. NULL on success; else the loader's reason, malloc'd, for the caller to free().
char *_Nullable CVaultSecret_LoadSdBus(const char *_Nonnull soname);

typedef enum {
    CVAULTSECRET_DIRECT_DONE,
    CVAULTSECRET_DIRECT_UNUSABLE,  // read through libsecret instead
    CVAULTSECRET_DIRECT_TIMED_OUT,  // the deadline passed
} CVaultSecret_DirectStatus;

/// A connection of the direct read's own, with its deadline and its session's key pair.
/// Release with CVaultSecret_DirectClose.
typedef struct CVaultSecret_DirectBus CVaultSecret_DirectBus;

/// Connects to the session bus, sends OpenSession with a new key pair and waits until the bus has
/// accepted the connection, all within `seconds` from now (the deadline of every call below).
/// *bus is set whatever the status, for CVaultSecret_DirectClose.
CVaultSecret_DirectStatus CVaultSecret_DirectOpen(double seconds, CVaultSecret_DirectBus *_Nullable *_Nonnull bus);
/// Gives the calls made from now on a new deadline, `seconds` from now (a connection kept for
/// the next read).
void CVaultSecret_DirectSetDeadline(CVaultSecret_DirectBus *_Nonnull bus, double seconds);
/// Closes the connection (the provider ends its session with it), wipes the key pair, frees `bus`.
void CVaultSecret_DirectClose(CVaultSecret_DirectBus *_Nullable bus);
/// Frees a NULL-terminated array of strings made by the functions below. NULL is ignored.
void CVaultSecret_DirectStringsFree(char *_Nullable *_Nullable strings);

/// SearchItems with `attributes` (name, value, name, value, ..., NULL): the unlocked items' paths
/// then the locked ones', as a NULL-terminated array (CVaultSecret_DirectStringsFree).
CVaultSecret_DirectStatus CVaultSecret_DirectSearch(
    CVaultSecret_DirectBus *_Nonnull bus, const char *_Nullable const *_Nonnull attributes,
    char *_Nullable *_Nullable *_Nonnull paths);
/// The item's properties (one Properties.GetAll): Locked, Created and Modified (false and 0 when
/// absent) and its attributes as name, value, ..., NULL (CVaultSecret_DirectStringsFree).
CVaultSecret_DirectStatus CVaultSecret_DirectItemRead(
    CVaultSecret_DirectBus *_Nonnull bus, const char *_Nonnull path, bool *_Nonnull locked, uint64_t *_Nonnull created,
    uint64_t *_Nonnull modified, char *_Nullable *_Nullable *_Nonnull attributes);
/// Waits for OpenSession's reply and agrees on the shared secret (written to `shared`) with the
/// provider's public value; *session is the session's path (malloc'd; free()). Once per
/// connection: the session serves every later read on it, and the key pair is wiped once agreed.
CVaultSecret_DirectStatus CVaultSecret_DirectSession(
    CVaultSecret_DirectBus *_Nonnull bus, uint8_t shared[_Nonnull CVAULTSECRET_GROUP_BYTES],
    char *_Nullable *_Nonnull session);
/// The secret of the item at `path` through `session` (one GetSecrets) into *secret, which
/// CVaultSecret_SecretBytesFree wipes and frees. The reply's copy of every secret is wiped.
CVaultSecret_DirectStatus CVaultSecret_DirectSecret(
    CVaultSecret_DirectBus *_Nonnull bus, const char *_Nonnull path, const char *_Nonnull session,
    CVaultSecret_SecretBytes *_Nonnull secret);

#endif
