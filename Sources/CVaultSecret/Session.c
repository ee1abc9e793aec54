// vault's session with the Secret Service: the key agreement and encryption of the spec's
// "dh-ietf1024-sha256-aes128-cbc-pkcs7" algorithm, and the calls that move secrets through it.
//
// Why not libsecret's session: it draws a 1024-bit private exponent, so each of its two modular
// exponentiations costs four times what the group's strength calls for, and it starts only
// after libsecret's service proxy is set up. Here the key pair is made while the bus connects,
// with a 256-bit exponent, and secrets travel by object path with no proxy. The primitives
// are libgcrypt's, the library libsecret itself uses (gcrypt_abi.h).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "shim_internal.h"

#define fn CVaultSecret_fn
#define gcry CVaultSecret_gcry

typedef CVAULTSECRET_T_gcry_mpi_t MPI;
typedef struct CVaultSecret_GVariant GVariant;

enum {
    GROUP_BYTES = 128,  // the 1024-bit group's numbers, as big-endian bytes
    EXPONENT_BYTES = 32,  // the private exponent: 256 bits
    KEY_BYTES = 16,  // AES-128
    BLOCK_BYTES = 16,  // AES's block, and the CBC initialization vector
    SHA256_BYTES = 32,
    KEY_PAIR_ATTEMPTS = 8,  // a new key pair is drawn for an encoding that would be ambiguous
};

static const char *const DH_ALGORITHM = "dh-ietf1024-sha256-aes128-cbc-pkcs7";

// RFC 2409 section 6.2, the Second Oakley Group, whose generator is 2: the group the
// algorithm's name ("ietf1024") refers to.
static const uint8_t GROUP_PRIME[GROUP_BYTES] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34, 0xC4, 0xC6, 0x62,
    0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74, 0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13,
    0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD, 0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30,
    0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37, 0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76,
    0x62, 0x5E, 0x7E, 0xC6, 0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7,
    0xED, 0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6, 0x49, 0x28,
    0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

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

// MARK: Cryptography

static bool random_bytes(void *buffer, size_t length) {
    uint8_t *at = buffer;
    while (length > 0) {
        ssize_t got = getrandom(at, length, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        at += got;
        length -= (size_t)got;
    }
    return true;
}

static void initialize_gcrypt_once(void) {
    // What an application that uses libgcrypt does first. libsecret initializes libgcrypt only
    // if no one has (and then with allocation handlers of its own), so the two never mix.
    if (gcry.gcry_control(CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED_P) == 0) {
        gcry.gcry_check_version(NULL);
        gcry.gcry_control(CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED, 0);
    }
}

static void initialize_gcrypt(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_gcrypt_once);
}

static MPI scan(const uint8_t *bytes, size_t length) {
    MPI value = NULL;
    if (gcry.gcry_mpi_scan(&value, CVAULTSECRET_GCRYMPI_FMT_USG, bytes, length, NULL) != 0) return NULL;
    return value;
}

// `value` (below the prime) as exactly GROUP_BYTES big-endian bytes, zeros first.
static bool print_fixed(MPI value, uint8_t out[GROUP_BYTES]) {
    size_t written = 0;
    if (gcry.gcry_mpi_print(CVAULTSECRET_GCRYMPI_FMT_USG, out, GROUP_BYTES, &written, value) != 0) return false;
    memmove(out + GROUP_BYTES - written, out, written);
    memset(out, 0, GROUP_BYTES - written);
    return true;
}

typedef struct KeyPair {
    MPI exponent;
    uint8_t public_value[GROUP_BYTES];
} KeyPair;

static void key_pair_release(KeyPair *pair) {
    gcry.gcry_mpi_release(pair->exponent);  // libgcrypt wipes a number's memory as it frees it
    pair->exponent = NULL;
}

// A private exponent of 256 random bits and its public value 2^x mod p. 256 bits is twice the
// group's strength (about 80 bits), the size RFC 3526 and NIST SP 800-56A call for; libsecret
// draws 1024 bits, which costs four times as much for no more strength. A public value whose
// first byte is zero is drawn again: providers that read the key by its length (KWallet wants
// 128 bytes, and libsecret sends fewer) then all read the same number.
static bool key_pair_make(KeyPair *pair) {
    uint8_t generator_byte = 2;
    MPI prime = scan(GROUP_PRIME, GROUP_BYTES), generator = scan(&generator_byte, 1),
        public_value = gcry.gcry_mpi_new(0);
    bool made = false;
    pair->exponent = NULL;
    for (int attempt = 0; attempt < KEY_PAIR_ATTEMPTS && !made && prime && generator && public_value; attempt++) {
        uint8_t exponent[EXPONENT_BYTES];
        if (!random_bytes(exponent, sizeof exponent)) break;
        key_pair_release(pair);
        pair->exponent = scan(exponent, sizeof exponent);
        explicit_bzero(exponent, sizeof exponent);
        if (pair->exponent == NULL || gcry.gcry_mpi_cmp_ui(pair->exponent, 1) <= 0) continue;
        gcry.gcry_mpi_powm(public_value, generator, pair->exponent, prime);
        made = print_fixed(public_value, pair->public_value) && pair->public_value[0] != 0;
    }
    gcry.gcry_mpi_release(prime);
    gcry.gcry_mpi_release(generator);
    gcry.gcry_mpi_release(public_value);
    if (!made) key_pair_release(pair);
    return made;
}

// HKDF-SHA256 (RFC 5869) with no salt and no information, KEY_BYTES of output: the spec's
// derivation of the session key from the shared secret.
static bool hkdf(const uint8_t *secret, size_t length, uint8_t key[KEY_BYTES]) {
    uint8_t salt[SHA256_BYTES] = {0}, pseudorandom[SHA256_BYTES], block[SHA256_BYTES], counter = 1;
    // With the HMAC flag, the first buffer is the key.
    CVAULTSECRET_T_gcry_buffer_t extract[2] = {
        {.size = sizeof salt, .len = sizeof salt, .data = salt},
        {.size = length, .len = length, .data = (void *)secret},
    };
    CVAULTSECRET_T_gcry_buffer_t expand[2] = {
        {.size = sizeof pseudorandom, .len = sizeof pseudorandom, .data = pseudorandom},
        {.size = 1, .len = 1, .data = &counter},
    };
    bool derived =
        gcry.gcry_md_hash_buffers(CVAULTSECRET_GCRY_MD_SHA256, CVAULTSECRET_GCRY_MD_FLAG_HMAC, pseudorandom, extract, 2)
            == 0
        && gcry.gcry_md_hash_buffers(CVAULTSECRET_GCRY_MD_SHA256, CVAULTSECRET_GCRY_MD_FLAG_HMAC, block, expand, 2)
            == 0;
    if (derived) memcpy(key, block, KEY_BYTES);
    explicit_bzero(pseudorandom, sizeof pseudorandom);
    explicit_bzero(block, sizeof block);
    return derived;
}

typedef enum { AGREED, INVALID_PEER, AMBIGUOUS, FAILED } Agreement;

// The session key from the provider's public value, big-endian with any number of leading
// zero bytes (KWallet's has a sign byte first, 129 in all). The value must lie in 2..p-2: the
// others give a shared secret an observer knows. A shared secret whose first byte is zero is refused
// as ambiguous: libsecret and GNOME Keyring keep that byte, KWallet (through QCA) drops it, so
// the two sides could derive different keys.
static Agreement agree(const KeyPair *pair, const uint8_t *peer_bytes, size_t peer_length, uint8_t key[KEY_BYTES]) {
    uint8_t limit_bytes[GROUP_BYTES], shared_bytes[GROUP_BYTES];
    memcpy(limit_bytes, GROUP_PRIME, GROUP_BYTES);
    limit_bytes[GROUP_BYTES - 1] -= 1;  // p - 1 (p ends in 0xFF)
    MPI limit = scan(limit_bytes, GROUP_BYTES), prime = scan(GROUP_PRIME, GROUP_BYTES);
    while (peer_length > 0 && peer_bytes[0] == 0) {
        peer_bytes++;
        peer_length--;
    }
    MPI peer = peer_length > 0 && peer_length <= GROUP_BYTES ? scan(peer_bytes, peer_length) : NULL;
    MPI shared = gcry.gcry_mpi_new(0);
    Agreement result = FAILED;
    if (limit && prime && shared) {
        if (peer == NULL || gcry.gcry_mpi_cmp_ui(peer, 1) <= 0 || gcry.gcry_mpi_cmp(peer, limit) >= 0) {
            result = INVALID_PEER;
        } else {
            gcry.gcry_mpi_powm(shared, peer, pair->exponent, prime);
            if (!print_fixed(shared, shared_bytes)) {
                result = FAILED;
            } else if (shared_bytes[0] == 0) {
                result = AMBIGUOUS;
            } else {
                result = hkdf(shared_bytes, GROUP_BYTES, key) ? AGREED : FAILED;
            }
            explicit_bzero(shared_bytes, sizeof shared_bytes);
        }
    }
    gcry.gcry_mpi_release(limit);
    gcry.gcry_mpi_release(prime);
    gcry.gcry_mpi_release(peer);
    gcry.gcry_mpi_release(shared);
    return result;
}

// AES-128-CBC over `length` bytes of `data` in place (a multiple of BLOCK_BYTES).
static bool
aes_cbc(const uint8_t key[KEY_BYTES], const uint8_t iv[BLOCK_BYTES], uint8_t *data, size_t length, bool encrypt) {
    CVAULTSECRET_T_gcry_cipher_hd_t cipher = NULL;
    if (gcry.gcry_cipher_open(&cipher, CVAULTSECRET_GCRY_CIPHER_AES128, CVAULTSECRET_GCRY_CIPHER_MODE_CBC, 0) != 0) {
        return false;
    }
    bool done = gcry.gcry_cipher_setkey(cipher, key, KEY_BYTES) == 0
        && gcry.gcry_cipher_setiv(cipher, iv, BLOCK_BYTES) == 0
        && (encrypt ? gcry.gcry_cipher_encrypt(cipher, data, length, NULL, 0)
                    : gcry.gcry_cipher_decrypt(cipher, data, length, NULL, 0))
            == 0;
    gcry.gcry_cipher_close(cipher);  // libgcrypt wipes the key schedule
    return done;
}

// MARK: The session

typedef struct Session {
    char *path;  // the provider's object for the session, malloc'd
    bool plain;  // the provider offers no encryption: secrets travel as they are
    uint8_t key[KEY_BYTES];
} Session;

// The process's session, opened once and kept, as libsecret keeps its service's.
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static Session *current = NULL;  // guarded by session_lock

static void session_free(Session *session) {
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
    KeyPair pair;
    if (!key_pair_make(&pair)) {
        set_error(error, "cannot make a key pair for the Secret Service session");
        return NULL;
    }
    if (!CVaultSecret_SessionBusConnect(deadline, error)) {
        key_pair_release(&pair);
        return NULL;
    }
    GVariant *arguments[2] = {
        fn.g_variant_new_string(DH_ALGORITHM),
        fn.g_variant_new_variant(
            fn.g_variant_new_fixed_array(CVAULTSECRET_TYPE("y"), pair.public_value, GROUP_BYTES, 1)),
    };
    GVariant *reply = call_service("OpenSession", fn.g_variant_new_tuple(arguments, 2), "(vo)", deadline, error);
    if (reply == NULL) {
        key_pair_release(&pair);
        if (*error == NULL || !is_not_supported(*error)) return NULL;
        CVaultSecret_ErrorFree(*error);  // a provider without encryption: as libsecret, use "plain"
        *error = NULL;
        return open_plain(deadline, error);
    }
    GVariant *boxed = fn.g_variant_get_child_value(reply, 0);
    GVariant *output = fn.g_variant_get_variant(boxed);
    GVariant *path = fn.g_variant_get_child_value(reply, 1);
    Session *session = session_new(fn.g_variant_get_string(path, NULL), false);
    Agreement agreement = INVALID_PEER;
    if (fn.g_variant_is_of_type(output, CVAULTSECRET_TYPE("ay"))) {
        size_t length = 0;
        const uint8_t *peer = fn.g_variant_get_fixed_array(output, &length, 1);
        agreement = agree(&pair, peer, length, session->key);
    }
    key_pair_release(&pair);
    fn.g_variant_unref(path);
    fn.g_variant_unref(output);
    fn.g_variant_unref(boxed);
    fn.g_variant_unref(reply);
    if (agreement == AGREED) return session;
    close_session(session->path, deadline);
    session_free(session);
    if (agreement == INVALID_PEER) set_error(error, "the Secret Service provider sent an invalid session key");
    if (agreement == FAILED) set_error(error, "cannot derive the Secret Service session key");
    return NULL;
}

// Opens the session unless it is open. Call with session_lock held.
static bool ensure_session(CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    if (current != NULL) return true;
    if (!CVaultSecret_HasGcrypt) {
        // A libsecret built without libgcrypt: no primitives for the encrypted session. Such a
        // libsecret asks every provider for a "plain" session itself; so does vault.
        if (!CVaultSecret_SessionBusConnect(deadline, error)) return false;
        current = open_plain(deadline, error);
        return current != NULL;
    }
    initialize_gcrypt();
    for (int attempt = 0; attempt < KEY_PAIR_ATTEMPTS && current == NULL; attempt++) {
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
    session_free(current);
    current = NULL;
    pthread_mutex_unlock(&session_lock);
    CVaultSecret_ServiceReset();
}

// A copy of the session (opened if need be), for one transfer; release with session_free.
static Session *session_copy(CVaultSecret_Deadline *deadline, CVaultSecret_Error **error) {
    pthread_mutex_lock(&session_lock);
    Session *copy = NULL;
    if (ensure_session(deadline, error)) {
        copy = session_new(current->path, current->plain);
        memcpy(copy->key, current->key, KEY_BYTES);
    }
    pthread_mutex_unlock(&session_lock);
    return copy;
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

// The spec's Secret struct (oayays) for `bytes`, encrypted with the session's key: a random
// initialization vector and the PKCS#7-padded bytes. NULL with *error set on failure.
static GVariant *encode_secret(
    const Session *session, const uint8_t *bytes, size_t length, const char *content_type, CVaultSecret_Error **error) {
    const struct CVaultSecret_GVariantType *byte_type = CVAULTSECRET_TYPE("y");
    if (session->plain) {
        GVariant *fields[4] = {
            fn.g_variant_new_object_path(session->path), fn.g_variant_new_fixed_array(byte_type, "", 0, 1),
            fn.g_variant_new_fixed_array(byte_type, length > 0 ? bytes : (const uint8_t *)"", length, 1),
            fn.g_variant_new_string(content_type)};
        return fn.g_variant_new_tuple(fields, 4);
    }
    size_t padded = (length / BLOCK_BYTES + 1) * BLOCK_BYTES;
    uint8_t iv[BLOCK_BYTES];
    uint8_t *data = padded > length ? malloc(padded) : NULL;
    if (data == NULL) {
        set_error(error, "out of memory for a secret");
        return NULL;
    }
    if (length > 0) memcpy(data, bytes, length);
    memset(data + length, (int)(padded - length), padded - length);
    bool encrypted = random_bytes(iv, sizeof iv) && aes_cbc(session->key, iv, data, padded, true);
    GVariant *secret = NULL;
    if (encrypted) {
        GVariant *fields[4] = {
            fn.g_variant_new_object_path(session->path), fn.g_variant_new_fixed_array(byte_type, iv, BLOCK_BYTES, 1),
            fn.g_variant_new_fixed_array(byte_type, data, padded, 1), fn.g_variant_new_string(content_type)};
        secret = fn.g_variant_new_tuple(fields, 4);
    } else {
        set_error(error, "cannot encrypt the secret for the Secret Service");
    }
    explicit_bzero(data, padded);
    free(data);
    return secret;
}

// encode_secret through the process's session, opened if need be.
static GVariant *encode_through_session(
    const uint8_t *bytes, size_t length, const char *content_type, CVaultSecret_Deadline *deadline,
    CVaultSecret_Error **error) {
    Session *session = session_copy(deadline, error);
    if (session == NULL) return NULL;
    GVariant *secret = encode_secret(session, bytes, length, content_type, error);
    session_free(session);
    return secret;
}

// The bytes of a Secret struct sent through `session`, malloc'd (one byte at least, so that an
// empty secret is not NULL), or NULL if it does not decrypt or unpad: sent with another key.
static uint8_t *decode_secret(const Session *session, GVariant *secret, size_t *length) {
    GVariant *parameters = fn.g_variant_get_child_value(secret, 1);
    GVariant *value = fn.g_variant_get_child_value(secret, 2);
    size_t iv_length = 0, value_length = 0;
    const uint8_t *iv = fn.g_variant_get_fixed_array(parameters, &iv_length, 1);
    const uint8_t *bytes = fn.g_variant_get_fixed_array(value, &value_length, 1);
    uint8_t *plain = NULL;
    *length = 0;
    if (session->plain) {
        plain = malloc(value_length + 1);
        if (plain == NULL) abort();
        if (value_length > 0) memcpy(plain, bytes, value_length);
        *length = value_length;
    } else if (iv_length == BLOCK_BYTES && value_length > 0 && value_length % BLOCK_BYTES == 0) {
        plain = malloc(value_length);
        if (plain == NULL) abort();
        memcpy(plain, bytes, value_length);
        uint8_t pad = 0;
        bool valid = aes_cbc(session->key, iv, plain, value_length, false);
        if (valid) {
            pad = plain[value_length - 1];
            valid = pad >= 1 && pad <= BLOCK_BYTES;
            for (size_t index = value_length - (valid ? pad : 0); valid && index < value_length; index++) {
                valid = plain[index] == pad;
            }
        }
        if (valid) {
            *length = value_length - pad;
        } else {
            explicit_bzero(plain, value_length);
            free(plain);
            plain = NULL;
        }
    }
    fn.g_variant_unref(value);
    fn.g_variant_unref(parameters);
    return plain;
}

uint8_t *_Nullable CVaultSecret_SecretForPath(
    const char *_Nonnull path, size_t *_Nonnull length, CVaultSecret_Deadline *_Nonnull deadline,
    CVaultSecret_Error *_Nullable *_Nonnull error) {
    *length = 0;
    Session *session = session_copy(deadline, error);
    if (session == NULL) return NULL;
    GVariant *item = fn.g_variant_new_object_path(path);
    GVariant *arguments[2] = {
        fn.g_variant_new_array(CVAULTSECRET_TYPE("o"), &item, 1),
        fn.g_variant_new_object_path(session->path),
    };
    GVariant *reply =
        call_service("GetSecrets", fn.g_variant_new_tuple(arguments, 2), "(a{o(oayays)})", deadline, error);
    uint8_t *bytes = NULL;
    if (reply != NULL) {
        // a{o(oayays)}: a locked item, or one the session cannot serve, is left out.
        GVariant *secrets = fn.g_variant_get_child_value(reply, 0);
        GVariant *secret = fn.g_variant_lookup_value(secrets, path, CVAULTSECRET_TYPE("(oayays)"));
        if (secret != NULL) {
            bytes = decode_secret(session, secret, length);
            fn.g_variant_unref(secret);
        }
        fn.g_variant_unref(secrets);
        fn.g_variant_unref(reply);
    }
    session_free(session);
    return bytes;
}

void CVaultSecret_SecretFree(uint8_t *_Nullable bytes, size_t length) {
    if (bytes == NULL) return;
    explicit_bzero(bytes, length);
    free(bytes);
}

bool CVaultSecret_ItemSetSecretAtPath(
    const char *_Nonnull path, const void *_Nullable bytes, size_t length, const char *_Nonnull contentType,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    GVariant *secret = encode_through_session(bytes, length, contentType, deadline, error);
    if (secret == NULL) return false;
    GVariant *reply = CVaultSecret_BusCall(
        CVAULTSECRET_SECRETS, path, CVAULTSECRET_ITEM_INTERFACE, "SetSecret", fn.g_variant_new_tuple(&secret, 1), "()",
        CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START, deadline, error);
    if (reply == NULL) return false;
    fn.g_variant_unref(reply);
    return true;
}

bool CVaultSecret_ItemCreate(
    CVaultSecret_Service *_Nonnull service, const char *_Nonnull collection,
    CVaultSecret_Attributes *_Nonnull attributes, const char *_Nonnull label, const void *_Nullable bytes,
    size_t length, const char *_Nonnull contentType, bool *_Nonnull prompted, char *_Nullable *_Nonnull item,
    CVaultSecret_Deadline *_Nonnull deadline, CVaultSecret_Error *_Nullable *_Nonnull error) {
    *prompted = false;
    *item = NULL;
    GVariant *secret = encode_through_session(bytes, length, contentType, deadline, error);
    if (secret == NULL) return false;
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
