// vault's session with the Secret Service: the spec's "dh-ietf1024-sha256-aes128-cbc-pkcs7"
// session opened once per process, and the calls that move secrets through it.
//
// Why not libsecret's session: it starts only after libsecret's service proxy is set up, and its
// key pair costs four times what the group's strength calls for (KeyAgreement.c). Here the key
// pair is made while the bus connects, and secrets travel by object path with no proxy. The shim
// moves the Secret struct's bytes as they are; Swift derives the session key from the shared
// secret and encrypts and decrypts them (SecretServiceSession.swift, with swift-crypto).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn
typedef struct CVaultSecret_GVariant GVariant;

static const char *const DH_ALGORITHM = "dh-ietf1024-sha256-aes128-cbc-pkcs7";

// MARK: Errors

static void set_error(CVaultSecret_Error **error, const char *message) {
    *error = (CVaultSecret_Error *)fn.g_error_new_literal(
        fn.g_quark_from_static_string(CVAULTSECRET_SESSION_ERROR_DOMAIN), 1, message);
}

static bool is_not_supported(const CVaultSecret_Error *error) {
    const CVaultSecret_GErrorLayout *layout = (const CVaultSecret_GErrorLayout *)(const void *)error;
    const char *domain = fn.g_quark_to_string(layout->domain);
    return domain != NULL && strcmp(domain, "g-dbus-error-quark") == 0
        && layout->code == CVAULTSECRET_G_DBUS_ERROR_NOT_SUPPORTED;
}

// MARK: The session

struct CVaultSecret_Session {
    char *path;  // the provider's object for the session, malloc'd
    bool plain;  // the provider offers no encryption: secrets travel as they are
    uint8_t shared[CVAULTSECRET_GROUP_BYTES];  // the key agreement's shared secret (zeros when plain)
};
typedef struct CVaultSecret_Session Session;

// The process's session, opened once and kept, as libsecret keeps its service's.
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static Session *current = NULL;  // guarded by session_lock

void CVaultSecret_SessionFree(CVaultSecret_Session *_Nullable session) {
    if (session == NULL) return;
    free(session->path);
    explicit_bzero(session, sizeof *session);
    free(session);
}

static Session *session_new(const char *path, bool plain) {
    Session *session = calloc(1, sizeof *session);
    if (session == NULL) abort();  // as GLib does when memory is exhausted
    session->path = strdup(path);
    if (session->path == NULL) abort();
    session->plain = plain;
    return session;
}

static GVariant *call_service(
    const char *method, GVariant *arguments, const char *reply_type, CVaultSecret_Deadline *deadline,
    CVaultSecret_Error **error) {
    // May start the provider, as libsecret's service proxy may.
    return CVaultSecret_BusCall(
        CVAULTSECRET_SECRETS, CVAULTSECRET_SECRETS_PATH, CVAULTSECRET_SERVICE_INTERFACE, method, arguments, reply_type,
        CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, deadline, error);
}

static void close_session(const char *path, CVaultSecret_Deadline *deadline) {
    CVaultSecret_Error *ignored = NULL;
    GVariant *reply = CVaultSecret_BusCall(
        CVAULTSECRET_SECRETS, path, CVAULTSECRET_SESSION_INTERFACE, "Close", fn.g_variant_new_tuple(NULL, 0), "()",
        CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START, deadline, &ignored);
    if (reply != NULL) fn.g_variant_unref(reply);
    CVaultSecret_ErrorFree(ignored);
}

static Session *open_plain(CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    GVariant *arguments[2] = {fn.g_variant_new_string("plain"), fn.g_variant_new_variant(fn.g_variant_new_string(""))};
    GVariant *reply = call_service("OpenSession", fn.g_variant_new_tuple(arguments, 2), "(vo)", deadline, error);
    if (reply == NULL) return NULL;
    GVariant *path = fn.g_variant_get_child_value(reply, 1);
    Session *session = session_new(fn.g_variant_get_string(path, NULL), true);
    fn.g_variant_unref(path);
    fn.g_variant_unref(reply);
    return session;
}

// One OpenSession with a new key pair, made before the bus connection is waited for (another
// thread may be making it): the session, or NULL with *error set, or NULL with *error unset when
// the agreement was ambiguous (then the provider's session is closed).
static Session *open_encrypted(CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    CVaultSecret_KeyPair pair;
    if (!CVaultSecret_KeyPairMake(&pair)) {
        set_error(error, "cannot make a key pair for the Secret Service session");
        return NULL;
    }
    if (!CVaultSecret_SessionBusConnect(deadline, error)) {
        CVaultSecret_KeyPairRelease(&pair);
        return NULL;
    }
    GVariant *arguments[2] = {
        fn.g_variant_new_string(DH_ALGORITHM),
        fn.g_variant_new_variant(
            fn.g_variant_new_fixed_array(CVAULTSECRET_TYPE("y"), pair.public_value, CVAULTSECRET_GROUP_BYTES, 1)),
    };
    GVariant *reply = call_service("OpenSession", fn.g_variant_new_tuple(arguments, 2), "(vo)", deadline, error);
    if (reply == NULL) {
        CVaultSecret_KeyPairRelease(&pair);
        if (*error == NULL || !is_not_supported(*error)) return NULL;
        CVaultSecret_ErrorFree(*error);  // a provider without encryption: as libsecret, use "plain"
        *error = NULL;
        return open_plain(deadline, error);
    }
    GVariant *boxed = fn.g_variant_get_child_value(reply, 0);
    GVariant *output = fn.g_variant_get_variant(boxed);
    GVariant *path = fn.g_variant_get_child_value(reply, 1);
    Session *session = session_new(fn.g_variant_get_string(path, NULL), false);
    CVaultSecret_Agreement agreement = CVAULTSECRET_AGREEMENT_INVALID_PEER;
    if (fn.g_variant_is_of_type(output, CVAULTSECRET_TYPE("ay"))) {
        size_t length = 0;
        const uint8_t *peer = fn.g_variant_get_fixed_array(output, &length, 1);
        if (peer != NULL) agreement = CVaultSecret_KeyAgree(&pair, peer, length, session->shared);
    }
    CVaultSecret_KeyPairRelease(&pair);
    fn.g_variant_unref(path);
    fn.g_variant_unref(output);
    fn.g_variant_unref(boxed);
    fn.g_variant_unref(reply);
    if (agreement == CVAULTSECRET_AGREEMENT_AGREED) return session;
    close_session(session->path, deadline);
    CVaultSecret_SessionFree(session);
    if (agreement == CVAULTSECRET_AGREEMENT_INVALID_PEER) {
        set_error(error, "the Secret Service provider sent an invalid session key");
    }
    if (agreement == CVAULTSECRET_AGREEMENT_FAILED) set_error(error, "cannot compute the Secret Service session key");
    return NULL;
}

// Opens the session unless it is open. Call with session_lock held.
static bool ensure_session(CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    if (current != NULL) return true;
    if (!CVaultSecret_HasGcrypt) {
        // A libsecret built without libgcrypt: no big numbers for the key agreement. Such a
        // libsecret asks every provider for a "plain" session itself; so does vault.
        if (!CVaultSecret_SessionBusConnect(deadline, error)) return false;
        current = open_plain(deadline, error);
        return current != NULL;
    }
    CVaultSecret_InitializeGcrypt();
    for (int attempt = 0; attempt < CVAULTSECRET_KEY_PAIR_ATTEMPTS && current == NULL; attempt++) {
        current = open_encrypted(deadline, error);
        if (current == NULL && *error != NULL) return false;
    }
    if (current == NULL) set_error(error, "cannot agree on a session key with the Secret Service provider");
    return current != NULL;
}

bool CVaultSecret_SessionOpen(CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    pthread_mutex_lock(&session_lock);
    bool opened = ensure_session(deadline, error);
    pthread_mutex_unlock(&session_lock);
    return opened;
}

void CVaultSecret_SessionReset(void) {
    pthread_mutex_lock(&session_lock);
    CVaultSecret_SessionFree(current);
    current = NULL;
    pthread_mutex_unlock(&session_lock);
    CVaultSecret_ServiceReset();
}

CVaultSecret_Session *_Nullable CVaultSecret_SessionCopy(
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    pthread_mutex_lock(&session_lock);
    Session *copy = NULL;
    if (ensure_session(deadline, error)) {
        copy = session_new(current->path, current->plain);
        memcpy(copy->shared, current->shared, CVAULTSECRET_GROUP_BYTES);
    }
    pthread_mutex_unlock(&session_lock);
    return copy;
}

bool CVaultSecret_SessionIsPlain(const CVaultSecret_Session *_Nonnull session) {
    return session->plain;
}

const uint8_t *_Nonnull CVaultSecret_SessionSharedSecret(const CVaultSecret_Session *_Nonnull session) {
    return session->shared;
}

// MARK: Opening on a thread of its own

struct CVaultSecret_SessionOpening {
    pthread_t thread;
    bool started;
    CVaultSecret_Deadline *deadline;
    CVaultSecret_Error *error;  // written by the thread, read after the join
    bool opened;
};

static void *open_on_thread(void *argument) {
    struct CVaultSecret_SessionOpening *opening = argument;
    opening->opened = CVaultSecret_SessionOpen(opening->deadline, &opening->error);
    return NULL;
}

CVaultSecret_SessionOpening *_Nullable CVaultSecret_SessionOpenStart(CVaultSecret_Deadline *_Nonnull deadline) {
    struct CVaultSecret_SessionOpening *opening = calloc(1, sizeof *opening);
    if (opening == NULL) return NULL;
    opening->deadline = deadline;
    pthread_mutex_lock(&session_lock);
    opening->opened = current != NULL;
    pthread_mutex_unlock(&session_lock);
    if (opening->opened) return opening;  // nothing to wait for
    int failed = pthread_create(&opening->thread, NULL, open_on_thread, opening);
    if (failed != 0) {
        free(opening);
        errno = failed;
        return NULL;
    }
    opening->started = true;
    return opening;
}

bool CVaultSecret_SessionOpenFinish(
    CVaultSecret_SessionOpening *_Nonnull opening, CVaultSecret_Error *_Nullable *_Nonnull error) {
    if (opening->started) pthread_join(opening->thread, NULL);
    bool opened = opening->opened;
    *error = opening->error;
    free(opening);
    return opened;
}

// MARK: Secrets through the session

// The spec's Secret struct (oayays): the session's path, the parameters and value as Swift made
// them (AES's initialization vector and the encrypted bytes; nothing and the secret in a plain
// session), and the content type. Floating.
static GVariant *secret_struct(
    const Session *session, const uint8_t *parameters, size_t parameters_length, const uint8_t *value,
    size_t value_length, const char *content_type) {
    const struct CVaultSecret_GVariantType *byte_type = CVAULTSECRET_TYPE("y");
    // GLib takes no NULL for an empty array, even of length zero.
    GVariant *fields[4] = {
        fn.g_variant_new_object_path(session->path),
        fn.g_variant_new_fixed_array(
            byte_type, parameters_length > 0 ? parameters : (const uint8_t *)"", parameters_length, 1),
        fn.g_variant_new_fixed_array(byte_type, value_length > 0 ? value : (const uint8_t *)"", value_length, 1),
        fn.g_variant_new_string(content_type)};
    return fn.g_variant_new_tuple(fields, 4);
}

uint8_t *CVaultSecret_CopyBytes(const void *bytes, size_t length) {
    uint8_t *copy = malloc(length + 1);
    if (copy == NULL) abort();  // as GLib does when memory is exhausted
    if (length > 0) memcpy(copy, bytes, length);
    return copy;
}

bool CVaultSecret_SecretForPath(
    const char *_Nonnull path, const CVaultSecret_Session *_Nonnull session, CVaultSecret_SecretBytes *_Nonnull secret,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    memset(secret, 0, sizeof *secret);
    GVariant *item = fn.g_variant_new_object_path(path);
    GVariant *arguments[2] = {
        fn.g_variant_new_array(CVAULTSECRET_TYPE("o"), &item, 1),
        fn.g_variant_new_object_path(session->path),
    };
    GVariant *reply =
        call_service("GetSecrets", fn.g_variant_new_tuple(arguments, 2), "(a{o(oayays)})", deadline, error);
    if (reply == NULL) return false;
    // a{o(oayays)}: a locked item, or one the session cannot serve, is left out.
    GVariant *secrets = fn.g_variant_get_child_value(reply, 0);
    GVariant *found = fn.g_variant_lookup_value(secrets, path, CVAULTSECRET_TYPE("(oayays)"));
    if (found != NULL) {
        GVariant *parameters = fn.g_variant_get_child_value(found, 1);
        GVariant *value = fn.g_variant_get_child_value(found, 2);
        const uint8_t *bytes = fn.g_variant_get_fixed_array(parameters, &secret->parametersLength, 1);
        secret->parameters = CVaultSecret_CopyBytes(bytes, secret->parametersLength);
        bytes = fn.g_variant_get_fixed_array(value, &secret->valueLength, 1);
        secret->value = CVaultSecret_CopyBytes(bytes, secret->valueLength);
        fn.g_variant_unref(value);
        fn.g_variant_unref(parameters);
        fn.g_variant_unref(found);
    }
    fn.g_variant_unref(secrets);
    fn.g_variant_unref(reply);
    return found != NULL;
}

void CVaultSecret_SecretBytesFree(CVaultSecret_SecretBytes *_Nonnull secret) {
    if (secret->parameters != NULL) explicit_bzero(secret->parameters, secret->parametersLength);
    if (secret->value != NULL) explicit_bzero(secret->value, secret->valueLength);
    free(secret->parameters);
    free(secret->value);
    memset(secret, 0, sizeof *secret);
}

bool CVaultSecret_ItemSetSecretAtPath(
    const char *_Nonnull path, const CVaultSecret_Session *_Nonnull session, const uint8_t *_Nullable parameters,
    size_t parametersLength, const uint8_t *_Nullable value, size_t valueLength, const char *_Nonnull contentType,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    GVariant *secret = secret_struct(session, parameters, parametersLength, value, valueLength, contentType);
    GVariant *reply = CVaultSecret_BusCall(
        CVAULTSECRET_SECRETS, path, CVAULTSECRET_ITEM_INTERFACE, "SetSecret", fn.g_variant_new_tuple(&secret, 1), "()",
        CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START, deadline, error);
    if (reply == NULL) return false;
    fn.g_variant_unref(reply);
    return true;
}

bool CVaultSecret_ItemCreate(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull collection,
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull label,
    const CVaultSecret_Session *_Nonnull session, const uint8_t *_Nullable parameters, size_t parametersLength,
    const uint8_t *_Nullable value, size_t valueLength, const char *_Nonnull contentType, bool *_Nonnull prompted,
    char *_Nullable *_Nonnull item, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    *prompted = false;
    *item = NULL;
    GVariant *secret = secret_struct(session, parameters, parametersLength, value, valueLength, contentType);
    GVariant *properties[2] = {
        fn.g_variant_new_dict_entry(
            fn.g_variant_new_string("org.freedesktop.Secret.Item.Label"),
            fn.g_variant_new_variant(fn.g_variant_new_string(label))),
        fn.g_variant_new_dict_entry(
            fn.g_variant_new_string("org.freedesktop.Secret.Item.Attributes"),
            fn.g_variant_new_variant(CVaultSecret_AttributesVariant(attributes))),
    };
    GVariant *arguments[3] = {
        fn.g_variant_new_array(CVAULTSECRET_TYPE("{sv}"), properties, 2), secret,
        fn.g_variant_new_boolean(0),  // never replace: vault updates items by path
    };
    GVariant *reply = CVaultSecret_BusCall(
        CVAULTSECRET_SECRETS, collection, CVAULTSECRET_COLLECTION_INTERFACE, "CreateItem",
        fn.g_variant_new_tuple(arguments, 3), "(oo)", CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START, deadline, error);
    if (reply == NULL) return false;
    // (item, prompt): with a prompt instead of an item, the item exists once the prompt has
    // run. KeePassXC answers every CreateItem so, and its prompt completes at once in an
    // unlocked database; libsecret runs it the same way (it is dismissed when the deadline fires).
    GVariant *created_item = fn.g_variant_get_child_value(reply, 0);
    GVariant *prompt = fn.g_variant_get_child_value(reply, 1);
    const char *prompt_path = fn.g_variant_get_string(prompt, NULL);
    bool created = true;
    if (strcmp(prompt_path, "/") != 0) {
        GVariant *result = fn.secret_service_prompt_at_dbus_path_sync(
            (struct CVaultSecret_SecretService *)service, prompt_path, CANCELLABLE(deadline), CVAULTSECRET_TYPE("o"),
            GERROR_OUT(error));
        created = result != NULL;
        *prompted = result == NULL && *error == NULL;  // dismissed
        if (result != NULL) {
            fn.g_variant_unref(created_item);
            created_item = result;  // the prompt's result is the item's path
        }
    }
    const char *path = fn.g_variant_get_string(created_item, NULL);
    if (created && strcmp(path, "/") != 0) {
        *item = strdup(path);
        if (*item == NULL) abort();  // as GLib does when memory is exhausted
    }
    fn.g_variant_unref(created_item);
    fn.g_variant_unref(prompt);
    fn.g_variant_unref(reply);
    return created;
}
