// CVaultBus: the provider's side of D-Bus (vault secret-service serve), on GDBus.
//
// Why a shim: GDBus is reached through libgio, loaded at run time with CVaultLoader so that vault
// without GLib still runs (no load-time dependency, as for libsecret in CVaultSecret). GDBus then
// does the D-Bus work vault must not write by hand: the wire protocol, checking each call's
// arguments against the interfaces' introspection XML (a wrong signature is answered with
// org.freedesktop.DBus.Error.InvalidArgs before vault sees it), Introspect, and the Properties
// interface's Get, GetAll and Set. What Swift cannot do is shimmed: the vtable structs of
// callbacks, GError, the main loop, and GVariant's building and reading.
//
// Threading: every callback runs on the thread that calls CVaultBus_ServerRun, one at a time.
// Only the one Swift file that imports this module (ProviderBus.swift) sees these types.
#ifndef CVAULTBUS_H
#define CVAULTBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A server: one session-bus connection with the objects registered on it. Owned by the caller
/// of CVaultBus_ServerNew, released with CVaultBus_ServerFree.
typedef struct CVaultBus_Server CVaultBus_Server;
/// A GVariant. Values the Build functions return are floating: the first container or return
/// function they are passed to takes them. Values the Get functions return are the caller's
/// (CVaultBus_VariantUnref).
typedef struct CVaultBus_Variant CVaultBus_Variant;
/// A method call waiting for its answer: exactly one CVaultBus_Return or CVaultBus_ReturnError
/// is made for each, which releases it.
typedef struct CVaultBus_Invocation CVaultBus_Invocation;
/// A GError, released with CVaultBus_ErrorFree.
typedef struct CVaultBus_Error CVaultBus_Error;
/// Where a property callback puts its failure (CVaultBus_Fail).
typedef struct CVaultBus_Fault CVaultBus_Fault;

/// Loads libgio (and GLib, through it) by `soname`, through CVaultLoader's load policy. NULL on
/// success (also when loaded before); else the reason, malloc'd, for the caller to free().
char *_Nullable CVaultBus_Load(const char *_Nonnull soname);

/// The callbacks a server calls, with `context` as their first argument. Paths are whole object
/// paths; `sender` is the caller's unique bus name.
typedef struct CVaultBus_Handlers {
    void *_Nullable context;
    /// The interfaces the object at `path` has, as a bit mask of their positions in the XML's
    /// node (bit 0: the first <interface>); 0 when there is no such object.
    uint64_t (*_Nonnull interfaces)(void *_Nullable context, const char *_Nonnull path);
    /// A call whose arguments match the method's in-signature. The callee answers `invocation`.
    void (*_Nonnull method)(
        void *_Nullable context, const char *_Nonnull sender, const char *_Nonnull path, const char *_Nonnull interface,
        const char *_Nonnull method, CVaultBus_Variant *_Nonnull parameters, CVaultBus_Invocation *_Nonnull invocation);
    /// A property's value (floating or owned: GDBus takes it), or NULL after CVaultBus_Fail.
    CVaultBus_Variant *_Nullable (*_Nonnull get_property)(
        void *_Nullable context, const char *_Nonnull sender, const char *_Nonnull path, const char *_Nonnull interface,
        const char *_Nonnull name, CVaultBus_Fault *_Nullable fault);
    /// Sets a writable property to `value` (of the property's type); false after CVaultBus_Fail.
    bool (*_Nonnull set_property)(
        void *_Nullable context, const char *_Nonnull sender, const char *_Nonnull path, const char *_Nonnull interface,
        const char *_Nonnull name, CVaultBus_Variant *_Nonnull value, CVaultBus_Fault *_Nullable fault);
} CVaultBus_Handlers;

/// Connects to the session bus (DBUS_SESSION_BUS_ADDRESS) and parses `xml` (one <node> with the
/// interfaces). No object is registered yet (CVaultBus_ServerRegister) nor the name requested
/// (CVaultBus_ServerRequestName). NULL with *error set on failure. The callbacks run only inside
/// CVaultBus_ServerRun.
CVaultBus_Server *_Nullable CVaultBus_ServerNew(
    const char *_Nonnull xml, CVaultBus_Handlers handlers, CVaultBus_Error *_Nullable *_Nonnull error);

/// Registers the object at `root` and every object one level below it (GDBus's subtrees reach
/// one level: /a/b/c needs /a/b registered), dispatched through the handlers. May be called from
/// a callback. False with *error set if `root` is registered already or invalid.
bool CVaultBus_ServerRegister(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull root, CVaultBus_Error *_Nullable *_Nonnull error);

/// Releases the server: its registrations, connection and main loop.
void CVaultBus_ServerFree(CVaultBus_Server *_Nullable server);

/// Asks the bus for `name` without queueing and without replacing its owner. Returns the bus's
/// answer (1: now the primary owner, 3: another connection owns it), or 0 with *error set.
uint32_t CVaultBus_ServerRequestName(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull name, CVaultBus_Error *_Nullable *_Nonnull error);

/// The uid of the process behind the unique bus name `sender`, asked of the bus
/// (GetConnectionUnixUser); false with *error set if the bus does not say.
bool CVaultBus_ServerSenderUID(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull sender, uint32_t *_Nonnull uid,
    CVaultBus_Error *_Nullable *_Nonnull error);

/// Whether `name` (a unique bus name) is still connected: 1 or 0, or -1 if the bus does not say.
int CVaultBus_ServerNameHasOwner(CVaultBus_Server *_Nonnull server, const char *_Nonnull name);

/// Runs the server's main loop: returns when the connection to the bus closes (the bus went away)
/// or CVaultBus_ServerStop is called from a callback.
void CVaultBus_ServerRun(CVaultBus_Server *_Nonnull server);

/// Makes CVaultBus_ServerRun return once the current callback has.
void CVaultBus_ServerStop(CVaultBus_Server *_Nonnull server);

/// Emits a signal from `path` to every listener; `arguments` is a tuple (taken). False with
/// *error set if it could not be queued.
bool CVaultBus_ServerEmit(
    CVaultBus_Server *_Nonnull server, const char *_Nonnull path, const char *_Nonnull interface,
    const char *_Nonnull name, CVaultBus_Variant *_Nonnull arguments, CVaultBus_Error *_Nullable *_Nonnull error);

/// Answers a call with `result`, a tuple of the method's out-signature (taken).
void CVaultBus_Return(CVaultBus_Invocation *_Nonnull invocation, CVaultBus_Variant *_Nonnull result);
/// Answers a call with the D-Bus error `name` and `message`.
void CVaultBus_ReturnError(
    CVaultBus_Invocation *_Nonnull invocation, const char *_Nonnull name, const char *_Nonnull message);
/// Fails a property callback with the D-Bus error `name` and `message` (a NULL fault: GDBus
/// reports nothing for that property).
void CVaultBus_Fail(CVaultBus_Fault *_Nullable fault, const char *_Nonnull name, const char *_Nonnull message);
/// Registers D-Bus error names (strings that live for the process) so that property failures keep
/// them (CVaultBus_Fail); names GLib maps already keep their mapping. Once per process.
void CVaultBus_RegisterErrors(const char *_Nonnull const *_Nonnull names, size_t count);

/// A GError's message (owned by the error).
const char *_Nonnull CVaultBus_ErrorMessage(const CVaultBus_Error *_Nonnull error);
void CVaultBus_ErrorFree(CVaultBus_Error *_Nullable error);

// MARK: Reading a GVariant

/// The value's type string ("s", "a{ss}", "(oayays)"), owned by the value.
const char *_Nonnull CVaultBus_VariantType(CVaultBus_Variant *_Nonnull value);
size_t CVaultBus_VariantCount(CVaultBus_Variant *_Nonnull value);
/// Child `index` of a container (below CVaultBus_VariantCount), the caller's to unref.
CVaultBus_Variant *_Nonnull CVaultBus_VariantChild(CVaultBus_Variant *_Nonnull value, size_t index);
/// A string, object path or signature's text (owned by the value) and its length.
const char *_Nonnull CVaultBus_VariantString(CVaultBus_Variant *_Nonnull value, size_t *_Nonnull length);
bool CVaultBus_VariantBoolean(CVaultBus_Variant *_Nonnull value);
uint32_t CVaultBus_VariantUInt32(CVaultBus_Variant *_Nonnull value);
uint64_t CVaultBus_VariantUInt64(CVaultBus_Variant *_Nonnull value);
/// An "ay"'s bytes (owned by the value; NULL when empty) and their number.
const uint8_t *_Nullable CVaultBus_VariantBytes(CVaultBus_Variant *_Nonnull value, size_t *_Nonnull length);
/// The value inside a "v", the caller's to unref.
CVaultBus_Variant *_Nonnull CVaultBus_VariantInner(CVaultBus_Variant *_Nonnull value);
void CVaultBus_VariantUnref(CVaultBus_Variant *_Nonnull value);

// MARK: Building a GVariant (floating values)

CVaultBus_Variant *_Nonnull CVaultBus_BuildString(const char *_Nonnull text);
/// An object path; `path` must be valid (the caller checks, GLib aborts otherwise).
CVaultBus_Variant *_Nonnull CVaultBus_BuildObjectPath(const char *_Nonnull path);
CVaultBus_Variant *_Nonnull CVaultBus_BuildBoolean(bool value);
CVaultBus_Variant *_Nonnull CVaultBus_BuildUInt32(uint32_t value);
CVaultBus_Variant *_Nonnull CVaultBus_BuildUInt64(uint64_t value);
CVaultBus_Variant *_Nonnull CVaultBus_BuildBytes(const uint8_t *_Nullable bytes, size_t length);
/// An array of `count` values of type `element` (a valid type string, needed when empty).
CVaultBus_Variant *_Nonnull CVaultBus_BuildArray(
    const char *_Nonnull element, CVaultBus_Variant *_Nonnull const *_Nullable values, size_t count);
CVaultBus_Variant *_Nonnull CVaultBus_BuildTuple(CVaultBus_Variant *_Nonnull const *_Nullable values, size_t count);
CVaultBus_Variant *_Nonnull CVaultBus_BuildDictEntry(
    CVaultBus_Variant *_Nonnull key, CVaultBus_Variant *_Nonnull value);
CVaultBus_Variant *_Nonnull CVaultBus_BuildVariant(CVaultBus_Variant *_Nonnull value);
/// Whether `type` is a valid GVariant type string (for CVaultBus_BuildArray's `element`).
bool CVaultBus_TypeIsValid(const char *_Nonnull type);

#endif
