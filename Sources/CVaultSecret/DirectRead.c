// The direct read: a read's calls (OpenSession, SearchItems, each item's properties, GetSecrets)
// over sd-bus on a connection of its own, without GLib. See include/CVaultSecret.h, "The direct
// read", for the contract; this file alone owns libsystemd and its objects.
//
// Why: loading libsecret with GLib, GIO and GObject and starting GDBus's worker thread is most
// of what a Secret Service `get` costs vault (docs/design.md, "Speed"); libsystemd loads in a
// third of that time. Anything this path does not expect ends it with UNUSABLE, and the caller
// reads through libsecret's path instead, which decides what such a reply means.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdbus_abi.h"
#include "shim_internal.h"

typedef CVAULTSECRET_T_sd_bus Bus;
typedef CVAULTSECRET_T_sd_bus_message Message;

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
CVAULTLOADER_TABLE(CVaultSecret_SdBusFunctions, CVAULTSECRET_SDBUS_FUNCTIONS);
#pragma clang diagnostic pop

static CVaultLoader_Library library = CVAULTLOADER_LIBRARY_INIT;
// Written once, under the library's lock, before it counts as loaded.
static CVaultSecret_SdBusFunctions sd;

char *_Nullable CVaultSecret_LoadSdBus(const char *_Nonnull soname) {
    return CVAULTLOADER_LOAD(&library, soname, CVaultSecret_SdBusFunctions, &sd, NULL);
}

#define DH_ALGORITHM "dh-ietf1024-sha256-aes128-cbc-pkcs7"

struct CVaultSecret_DirectBus {
    Bus *bus;
    uint64_t deadline;  // CLOCK_MONOTONIC, microseconds
    CVaultSecret_KeyPair pair;
    bool has_pair;
    CVAULTSECRET_T_sd_bus_slot *opening;  // the pending OpenSession, until its reply
    Message *opened;  // OpenSession's reply, once it came
};

static uint64_t now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

// Microseconds left before the deadline; 0 once it has passed (sd-bus reads 0 as "its default").
static uint64_t remaining(const CVaultSecret_DirectBus *direct) {
    uint64_t now = now_usec();
    return now < direct->deadline ? direct->deadline - now : 0;
}

// What a failed sd-bus call means here: the deadline passed, or the path cannot go on.
static CVaultSecret_DirectStatus failure(const CVaultSecret_DirectBus *direct, int result) {
    return result == -ETIMEDOUT || remaining(direct) == 0 ? CVAULTSECRET_DIRECT_TIMED_OUT
                                                          : CVAULTSECRET_DIRECT_UNUSABLE;
}

static int opened(Message *reply, void *userdata, CVAULTSECRET_T_sd_bus_error *error) {
    (void)error;
    CVaultSecret_DirectBus *direct = userdata;
    direct->opened = sd.sd_bus_message_ref(reply);
    return 1;
}

// Reads and dispatches until `done` is true, within the deadline.
static CVaultSecret_DirectStatus wait_until(CVaultSecret_DirectBus *direct, bool (*done)(CVaultSecret_DirectBus *)) {
    while (!done(direct)) {
        int result = sd.sd_bus_process(direct->bus, NULL);
        if (result < 0) return failure(direct, result);
        if (result > 0) continue;
        uint64_t left = remaining(direct);
        if (left == 0) return CVAULTSECRET_DIRECT_TIMED_OUT;
        result = sd.sd_bus_wait(direct->bus, left);
        if (result < 0) return failure(direct, result);
    }
    return CVAULTSECRET_DIRECT_DONE;
}

static bool is_ready(CVaultSecret_DirectBus *direct) {
    return sd.sd_bus_is_ready(direct->bus) != 0;
}

static bool session_answered(CVaultSecret_DirectBus *direct) {
    return direct->opened != NULL;
}

// A method call to the Secret Service: `path`'s `interface`.`method`, starting the provider only
// where `may_start`.
static int new_call(
    CVaultSecret_DirectBus *direct, Message **message, const char *path, const char *interface, const char *method,
    bool may_start) {
    int result = sd.sd_bus_message_new_method_call(direct->bus, message, CVAULTSECRET_SECRETS, path, interface, method);
    if (result >= 0) result = sd.sd_bus_message_set_auto_start(*message, may_start);
    return result;
}

// Sends `message` (released either way) and waits for its reply within the deadline, unless
// building it failed (`built`, the last result of building it, below zero).
static CVaultSecret_DirectStatus call(CVaultSecret_DirectBus *direct, Message *message, int built, Message **reply) {
    if (built < 0) {
        sd.sd_bus_message_unref(message);
        return CVAULTSECRET_DIRECT_UNUSABLE;
    }
    uint64_t left = remaining(direct);
    int result = left == 0 ? -ETIMEDOUT : sd.sd_bus_call(direct->bus, message, left, NULL, reply);
    sd.sd_bus_message_unref(message);
    return result < 0 ? failure(direct, result) : CVAULTSECRET_DIRECT_DONE;
}

// Draws a new key pair and sends OpenSession with it, its reply left to `opened`.
static CVaultSecret_DirectStatus open_session(CVaultSecret_DirectBus *direct) {
    if (direct->has_pair) CVaultSecret_KeyPairRelease(&direct->pair);
    direct->has_pair = CVaultSecret_KeyPairMake(&direct->pair);
    if (!direct->has_pair) return CVAULTSECRET_DIRECT_UNUSABLE;
    if (direct->opening != NULL) direct->opening = sd.sd_bus_slot_unref(direct->opening);
    Message *message = NULL;
    int result =
        new_call(direct, &message, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, "OpenSession", true);
    if (result >= 0) result = sd.sd_bus_message_append_basic(message, 's', DH_ALGORITHM);
    if (result >= 0) result = sd.sd_bus_message_open_container(message, 'v', "ay");
    if (result >= 0)
        result = sd.sd_bus_message_append_array(message, 'y', direct->pair.public_value, CVAULTSECRET_GROUP_BYTES);
    if (result >= 0) result = sd.sd_bus_message_close_container(message);
    if (result >= 0)
        // sd-bus's own time-out for it comes a second after the deadline, which decides first.
        result =
            sd.sd_bus_call_async(direct->bus, &direct->opening, message, opened, direct, remaining(direct) + 1000000u);
    sd.sd_bus_message_unref(message);
    return result < 0 ? failure(direct, result) : CVAULTSECRET_DIRECT_DONE;
}

void CVaultSecret_DirectSetDeadline(CVaultSecret_DirectBus *_Nonnull direct, double seconds) {
    direct->deadline = now_usec() + (uint64_t)(seconds * 1e6);
}

CVaultSecret_DirectStatus CVaultSecret_DirectOpen(double seconds, CVaultSecret_DirectBus *_Nullable *_Nonnull out) {
    *out = NULL;
    CVaultSecret_DirectBus *direct = calloc(1, sizeof *direct);
    if (direct == NULL) return CVAULTSECRET_DIRECT_UNUSABLE;
    CVaultSecret_DirectSetDeadline(direct, seconds);
    *out = direct;
    if (!CVaultSecret_HasGcrypt || sd.sd_bus_open_user(&direct->bus) < 0) return CVAULTSECRET_DIRECT_UNUSABLE;
    // The key pair is made while the bus authenticates us, and OpenSession waits in sd-bus's
    // queue until it has: the provider's half of the agreement overlaps the search that follows.
    CVaultSecret_InitializeGcrypt();
    CVaultSecret_DirectStatus status = open_session(direct);
    return status == CVAULTSECRET_DIRECT_DONE ? wait_until(direct, is_ready) : status;
}

void CVaultSecret_DirectClose(CVaultSecret_DirectBus *_Nullable direct) {
    if (direct == NULL) return;
    if (direct->has_pair) CVaultSecret_KeyPairRelease(&direct->pair);
    if (direct->opened != NULL) sd.sd_bus_message_unref(direct->opened);
    if (direct->opening != NULL) sd.sd_bus_slot_unref(direct->opening);
    // Closed without flushing: nothing is left to send, and a flush waits without a bound.
    if (direct->bus != NULL) sd.sd_bus_close_unref(direct->bus);
    free(direct);
}

// MARK: Replies

static char *copy_string(const char *string) {
    char *copy = strdup(string);
    if (copy == NULL) abort();  // as the rest of the shim does when memory is exhausted
    return copy;
}

// Appends a copy of `string` to the NULL-terminated array `strings` of `count` strings.
static void append_string(char ***strings, size_t *count, const char *string) {
    char **grown = realloc(*strings, (*count + 2) * sizeof **strings);
    if (grown == NULL) abort();
    *strings = grown;
    grown[(*count)++] = copy_string(string);
    grown[*count] = NULL;
}

void CVaultSecret_DirectStringsFree(char *_Nullable *_Nullable strings) {
    if (strings == NULL) return;
    for (char **string = strings; *string != NULL; string++) free(*string);
    free(strings);
}

// Appends the strings of an array of type `element` ("o" or "s") at the reply's position to
// `strings` (grown as needed, NULL-terminated); a result below zero on a reply of another shape.
static int read_strings(Message *reply, char element, char ***strings, size_t *count) {
    char signature[2] = {element, 0};
    int result = sd.sd_bus_message_enter_container(reply, 'a', signature);
    if (result <= 0) return result < 0 ? result : -EBADMSG;
    for (;;) {
        const char *string = NULL;
        result = sd.sd_bus_message_read_basic(reply, element, &string);
        if (result < 0) return result;
        if (result == 0) break;
        append_string(strings, count, string);
    }
    return sd.sd_bus_message_exit_container(reply);
}

CVaultSecret_DirectStatus CVaultSecret_DirectSearch(
    CVaultSecret_DirectBus *_Nonnull direct, const char *_Nullable const *_Nonnull attributes,
    char *_Nullable *_Nullable *_Nonnull paths) {
    *paths = NULL;
    Message *message = NULL, *reply = NULL;
    int result =
        new_call(direct, &message, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, "SearchItems", true);
    if (result >= 0) result = sd.sd_bus_message_open_container(message, 'a', "{ss}");
    for (size_t index = 0; result >= 0 && attributes[index] != NULL; index += 2) {
        result = sd.sd_bus_message_open_container(message, 'e', "ss");
        if (result >= 0) result = sd.sd_bus_message_append_basic(message, 's', attributes[index]);
        if (result >= 0) result = sd.sd_bus_message_append_basic(message, 's', attributes[index + 1]);
        if (result >= 0) result = sd.sd_bus_message_close_container(message);
    }
    if (result >= 0) result = sd.sd_bus_message_close_container(message);
    CVaultSecret_DirectStatus status = call(direct, message, result, &reply);
    if (status != CVAULTSECRET_DIRECT_DONE) return status;
    // (ao unlocked, ao locked): both, in that order, as the libsecret path lists them.
    char **found = CVaultSecret_NewStrings(0);
    size_t count = 0;
    result = read_strings(reply, 'o', &found, &count);
    if (result >= 0) result = read_strings(reply, 'o', &found, &count);
    sd.sd_bus_message_unref(reply);
    if (result < 0) {
        CVaultSecret_DirectStringsFree(found);
        return CVAULTSECRET_DIRECT_UNUSABLE;
    }
    *paths = found;
    return CVAULTSECRET_DIRECT_DONE;
}

// Enters the next element of the array being read: 1, or 0 after its last, or below zero.
static int next_entry(Message *reply, const char *contents) {
    return sd.sd_bus_message_enter_container(reply, 'e', contents);
}

// Reads an Attributes value (a{ss} in the variant) into `attributes` (name, value, ...).
static int read_attributes(Message *reply, char ***attributes, size_t *count) {
    int result = sd.sd_bus_message_enter_container(reply, 'v', "a{ss}");
    if (result > 0) result = sd.sd_bus_message_enter_container(reply, 'a', "{ss}");
    if (result <= 0) return result < 0 ? result : -EBADMSG;
    while ((result = next_entry(reply, "ss")) > 0) {
        const char *key = NULL, *value = NULL;
        if (sd.sd_bus_message_read_basic(reply, 's', &key) <= 0
            || sd.sd_bus_message_read_basic(reply, 's', &value) <= 0)
            return -EBADMSG;
        append_string(attributes, count, key);
        append_string(attributes, count, value);
        if ((result = sd.sd_bus_message_exit_container(reply)) < 0) return result;
    }
    if (result < 0) return result;
    if ((result = sd.sd_bus_message_exit_container(reply)) < 0) return result;  // the array
    return sd.sd_bus_message_exit_container(reply);  // the variant
}

// Reads a property whose variant holds the basic `type` ("b" or "t") into `out`.
static int read_basic_property(Message *reply, char type, void *out) {
    char signature[2] = {type, 0};
    int result = sd.sd_bus_message_enter_container(reply, 'v', signature);
    if (result > 0) result = sd.sd_bus_message_read_basic(reply, type, out);
    if (result <= 0) return result < 0 ? result : -EBADMSG;
    return sd.sd_bus_message_exit_container(reply);
}

// The properties the read uses, each allowed once: a property sent twice is a reply the libsecret
// path reads its own way (GLib's lookup takes the first).
enum { LOCKED, CREATED, MODIFIED, ATTRIBUTES, PROPERTIES };
static const char *const property_names[PROPERTIES] = {"Locked", "Created", "Modified", "Attributes"};

CVaultSecret_DirectStatus CVaultSecret_DirectItemRead(
    CVaultSecret_DirectBus *_Nonnull direct, const char *_Nonnull path, bool *_Nonnull locked,
    uint64_t *_Nonnull created, uint64_t *_Nonnull modified, char *_Nullable *_Nullable *_Nonnull attributes) {
    *locked = false;
    *created = 0;
    *modified = 0;
    *attributes = NULL;
    Message *message = NULL, *reply = NULL;
    int result = new_call(direct, &message, path, CVAULTSECRET_PROPERTIES_INTERFACE, "GetAll", false);
    if (result >= 0) result = sd.sd_bus_message_append_basic(message, 's', CVAULTSECRET_ITEM_INTERFACE);
    CVaultSecret_DirectStatus status = call(direct, message, result, &reply);
    if (status != CVAULTSECRET_DIRECT_DONE) return status;
    char **pairs = CVaultSecret_NewStrings(0);
    size_t count = 0;
    bool seen[PROPERTIES] = {false};
    int flag = 0;
    result = sd.sd_bus_message_enter_container(reply, 'a', "{sv}");
    if (result == 0) result = -EBADMSG;
    while (result > 0 && (result = next_entry(reply, "sv")) > 0) {
        const char *name = NULL;
        if (sd.sd_bus_message_read_basic(reply, 's', &name) <= 0) {
            result = -EBADMSG;
            break;
        }
        int property = 0;
        while (property < PROPERTIES && strcmp(name, property_names[property]) != 0) property++;
        if (property < PROPERTIES && seen[property]) {
            result = -EBADMSG;
            break;
        }
        if (property < PROPERTIES) seen[property] = true;
        switch (property) {
        case LOCKED:
            result = read_basic_property(reply, 'b', &flag);
            break;
        case CREATED:
            result = read_basic_property(reply, 't', created);
            break;
        case MODIFIED:
            result = read_basic_property(reply, 't', modified);
            break;
        case ATTRIBUTES:
            result = read_attributes(reply, &pairs, &count);
            break;
        default:
            result = sd.sd_bus_message_skip(reply, "v");
            break;
        }
        if (result >= 0) result = sd.sd_bus_message_exit_container(reply);
        if (result >= 0) result = 1;
    }
    if (result == 0) result = sd.sd_bus_message_exit_container(reply);
    sd.sd_bus_message_unref(reply);
    if (result < 0) {
        CVaultSecret_DirectStringsFree(pairs);
        return CVAULTSECRET_DIRECT_UNUSABLE;
    }
    *locked = flag != 0;
    *attributes = pairs;
    return CVAULTSECRET_DIRECT_DONE;
}

// MARK: The session and the secret

// The agreement with OpenSession's reply, (v output, o result): the provider's public value in
// the variant; *session is the session's path (malloc'd) unless the reply is not one.
static CVaultSecret_Agreement
agree(CVaultSecret_DirectBus *direct, Message *reply, uint8_t shared[CVAULTSECRET_GROUP_BYTES], char **session) {
    *session = NULL;
    const void *peer = NULL;
    size_t length = 0;
    const char *path = NULL;
    int result = sd.sd_bus_message_enter_container(reply, 'v', "ay");
    if (result > 0) result = sd.sd_bus_message_read_array(reply, 'y', &peer, &length);
    if (result > 0) result = sd.sd_bus_message_exit_container(reply);
    if (result >= 0) result = sd.sd_bus_message_read_basic(reply, 'o', &path);
    if (result <= 0) return CVAULTSECRET_AGREEMENT_FAILED;
    *session = copy_string(path);
    return CVaultSecret_KeyAgree(&direct->pair, peer, length, shared);
}

// Closes the provider's session at `path` (Session.Close), whatever its answer.
static void close_session(CVaultSecret_DirectBus *direct, const char *path) {
    Message *message = NULL, *reply = NULL;
    int built = new_call(direct, &message, path, CVAULTSECRET_SESSION_INTERFACE, "Close", false);
    if (call(direct, message, built, &reply) == CVAULTSECRET_DIRECT_DONE) sd.sd_bus_message_unref(reply);
}

CVaultSecret_DirectStatus CVaultSecret_DirectSession(
    CVaultSecret_DirectBus *_Nonnull direct, uint8_t shared[_Nonnull CVAULTSECRET_GROUP_BYTES],
    char *_Nullable *_Nonnull path) {
    *path = NULL;
    for (int attempt = 0; attempt < CVAULTSECRET_KEY_PAIR_ATTEMPTS; attempt++) {
        CVaultSecret_DirectStatus status = wait_until(direct, session_answered);
        if (status != CVAULTSECRET_DIRECT_DONE) return status;
        Message *reply = direct->opened;
        direct->opened = NULL;
        // An error (a provider without encryption answers NotSupported) is the libsecret path's.
        bool error = sd.sd_bus_message_is_method_error(reply, NULL) != 0;
        char *session = NULL;
        CVaultSecret_Agreement agreement =
            error ? CVAULTSECRET_AGREEMENT_FAILED : agree(direct, reply, shared, &session);
        sd.sd_bus_message_unref(reply);
        if (error && remaining(direct) == 0) return CVAULTSECRET_DIRECT_TIMED_OUT;
        if (agreement == CVAULTSECRET_AGREEMENT_AGREED) {
            // The private exponent is done with: wiped now, not when the connection closes.
            CVaultSecret_KeyPairRelease(&direct->pair);
            direct->has_pair = false;
            *path = session;
            return CVAULTSECRET_DIRECT_DONE;
        }
        if (agreement != CVAULTSECRET_AGREEMENT_AMBIGUOUS) {
            free(session);
            return CVAULTSECRET_DIRECT_UNUSABLE;
        }
        // A shared secret whose first byte is zero, which providers encode differently: that
        // session is closed and another agreed, as libsecret's path does (Session.c).
        close_session(direct, session);
        free(session);
        status = open_session(direct);
        if (status != CVAULTSECRET_DIRECT_DONE) return status;
    }
    return CVAULTSECRET_DIRECT_UNUSABLE;
}

// A copy of `length` bytes of the reply, which are wiped there: sd-bus frees its buffer
// without wiping it.
static uint8_t *take_bytes(const void *bytes, size_t length) {
    uint8_t *copy = CVaultSecret_CopyBytes(bytes, length);
    if (length > 0) explicit_bzero((void *)(uintptr_t)bytes, length);
    return copy;
}

CVaultSecret_DirectStatus CVaultSecret_DirectSecret(
    CVaultSecret_DirectBus *_Nonnull direct, const char *_Nonnull path, const char *_Nonnull session,
    CVaultSecret_SecretBytes *_Nonnull secret) {
    memset(secret, 0, sizeof *secret);
    Message *message = NULL, *reply = NULL;
    int result =
        new_call(direct, &message, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, "GetSecrets", false);
    if (result >= 0) result = sd.sd_bus_message_open_container(message, 'a', "o");
    if (result >= 0) result = sd.sd_bus_message_append_basic(message, 'o', path);
    if (result >= 0) result = sd.sd_bus_message_close_container(message);
    if (result >= 0) result = sd.sd_bus_message_append_basic(message, 'o', session);
    CVaultSecret_DirectStatus status = call(direct, message, result, &reply);
    if (status != CVAULTSECRET_DIRECT_DONE) return status;
    // a{o(oayays)}: the first entry for `path`, as the libsecret path's lookup takes it; every
    // secret in the reply is wiped as it is passed.
    bool found = false;
    result = sd.sd_bus_message_enter_container(reply, 'a', "{o(oayays)}");
    if (result == 0) result = -EBADMSG;
    while (result > 0 && (result = next_entry(reply, "o(oayays)")) > 0) {
        const char *key = NULL, *their_session = NULL, *type = NULL;
        const void *parameters = NULL, *value = NULL;
        size_t parameters_length = 0, value_length = 0;
        if (sd.sd_bus_message_read_basic(reply, 'o', &key) <= 0
            || sd.sd_bus_message_enter_container(reply, 'r', "oayays") <= 0
            || sd.sd_bus_message_read_basic(reply, 'o', &their_session) <= 0
            || sd.sd_bus_message_read_array(reply, 'y', &parameters, &parameters_length) <= 0
            || sd.sd_bus_message_read_array(reply, 'y', &value, &value_length) <= 0
            || sd.sd_bus_message_read_basic(reply, 's', &type) <= 0) {
            result = -EBADMSG;
            break;
        }
        if (!found && strcmp(key, path) == 0) {
            found = true;
            secret->parameters = take_bytes(parameters, parameters_length);
            secret->parametersLength = parameters_length;
            secret->value = take_bytes(value, value_length);
            secret->valueLength = value_length;
        } else if (value_length > 0) {
            explicit_bzero((void *)(uintptr_t)value, value_length);
        }
        result = sd.sd_bus_message_exit_container(reply);  // the struct
        if (result >= 0) result = sd.sd_bus_message_exit_container(reply);  // the entry
        if (result >= 0) result = 1;
    }
    if (result == 0) result = sd.sd_bus_message_exit_container(reply);
    sd.sd_bus_message_unref(reply);
    if (result < 0 || !found) {
        CVaultSecret_SecretBytesFree(secret);
        return CVAULTSECRET_DIRECT_UNUSABLE;
    }
    return CVAULTSECRET_DIRECT_DONE;
}
