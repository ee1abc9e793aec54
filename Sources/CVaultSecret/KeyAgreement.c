// The Diffie-Hellman half of the spec's "dh-ietf1024-sha256-aes128-cbc-pkcs7" session: the key
// pair and the shared secret, in the 1024-bit MODP group the algorithm names.
//
// Why C: the two modular exponentiations need big-number arithmetic, which neither Swift's
// standard library nor swift-crypto offers publicly (swift-crypto's ArbitraryPrecisionInteger is
// `package`-internal), while libgcrypt, the library libsecret itself uses and loads, has a
// constant-time gcry_mpi_powm. The rest of the session's cryptography (HKDF-SHA256, AES-128-CBC,
// PKCS#7) is swift-crypto's, in Swift (SecretServiceSession.swift).
//
// Why not libsecret's session: it draws a 1024-bit private exponent, so each of its two modular
// exponentiations costs four times what the group's strength calls for (docs/design.md, "Speed").
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

#include "shim_internal.h"

#define gcry CVaultSecret_gcry

typedef CVAULTSECRET_T_gcry_mpi_t MPI;

enum {
    EXPONENT_BYTES = 32,  // the private exponent: 256 bits
};

// RFC 2409 section 6.2, the Second Oakley Group, whose generator is 2: the group the
// algorithm's name ("ietf1024") refers to.
static const uint8_t GROUP_PRIME[CVAULTSECRET_GROUP_BYTES] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34, 0xC4, 0xC6, 0x62,
    0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74, 0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13,
    0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD, 0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30,
    0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37, 0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76,
    0x62, 0x5E, 0x7E, 0xC6, 0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7,
    0xED, 0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6, 0x49, 0x28,
    0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

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

void CVaultSecret_InitializeGcrypt(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_gcrypt_once);
}

static MPI scan(const uint8_t *bytes, size_t length) {
    MPI value = NULL;
    if (gcry.gcry_mpi_scan(&value, CVAULTSECRET_GCRYMPI_FMT_USG, bytes, length, NULL) != 0) return NULL;
    return value;
}

// `value` (below the prime) as exactly CVAULTSECRET_GROUP_BYTES big-endian bytes, zeros first.
static bool print_fixed(MPI value, uint8_t out[CVAULTSECRET_GROUP_BYTES]) {
    size_t written = 0;
    if (gcry.gcry_mpi_print(CVAULTSECRET_GCRYMPI_FMT_USG, out, CVAULTSECRET_GROUP_BYTES, &written, value) != 0) {
        return false;
    }
    memmove(out + CVAULTSECRET_GROUP_BYTES - written, out, written);
    memset(out, 0, CVAULTSECRET_GROUP_BYTES - written);
    return true;
}

void CVaultSecret_KeyPairRelease(CVaultSecret_KeyPair *pair) {
    gcry.gcry_mpi_release(pair->exponent);  // libgcrypt wipes a number's memory as it frees it
    pair->exponent = NULL;
}

// A private exponent of 256 random bits and its public value 2^x mod p. 256 bits is twice the
// group's strength (about 80 bits), the size RFC 3526 and NIST SP 800-56A call for; libsecret
// draws 1024 bits, which costs four times as much for no more strength. A public value whose
// first byte is zero is drawn again: providers that read the key by its length (KWallet wants
// 128 bytes, and libsecret sends fewer) then all read the same number.
bool CVaultSecret_KeyPairMake(CVaultSecret_KeyPair *pair) {
    uint8_t generator_byte = 2;
    MPI prime = scan(GROUP_PRIME, CVAULTSECRET_GROUP_BYTES), generator = scan(&generator_byte, 1),
        public_value = gcry.gcry_mpi_new(0);
    bool made = false;
    pair->exponent = NULL;
    for (int attempt = 0; attempt < CVAULTSECRET_KEY_PAIR_ATTEMPTS && !made && prime && generator && public_value;
         attempt++) {
        uint8_t exponent[EXPONENT_BYTES];
        if (!random_bytes(exponent, sizeof exponent)) break;
        CVaultSecret_KeyPairRelease(pair);
        pair->exponent = scan(exponent, sizeof exponent);
        explicit_bzero(exponent, sizeof exponent);
        if (pair->exponent == NULL || gcry.gcry_mpi_cmp_ui(pair->exponent, 1) <= 0) continue;
        gcry.gcry_mpi_powm(public_value, generator, pair->exponent, prime);
        made = print_fixed(public_value, pair->public_value) && pair->public_value[0] != 0;
    }
    gcry.gcry_mpi_release(prime);
    gcry.gcry_mpi_release(generator);
    gcry.gcry_mpi_release(public_value);
    if (!made) CVaultSecret_KeyPairRelease(pair);
    return made;
}

// The provider's public value is big-endian with any number of leading zero bytes (KWallet's has
// a sign byte first, 129 in all). The value must lie in 2..p-2: the others give a shared secret
// an observer knows. A shared secret whose first byte is zero is refused as ambiguous: libsecret
// and GNOME Keyring keep that byte, KWallet (through QCA) drops it, so the two sides could derive
// different keys.
CVaultSecret_Agreement CVaultSecret_KeyAgree(
    const CVaultSecret_KeyPair *pair, const uint8_t *peer_bytes, size_t peer_length,
    uint8_t shared_bytes[CVAULTSECRET_GROUP_BYTES]) {
    uint8_t limit_bytes[CVAULTSECRET_GROUP_BYTES];
    memcpy(limit_bytes, GROUP_PRIME, CVAULTSECRET_GROUP_BYTES);
    limit_bytes[CVAULTSECRET_GROUP_BYTES - 1] -= 1;  // p - 1 (p ends in 0xFF)
    MPI limit = scan(limit_bytes, CVAULTSECRET_GROUP_BYTES), prime = scan(GROUP_PRIME, CVAULTSECRET_GROUP_BYTES);
    while (peer_length > 0 && peer_bytes[0] == 0) {
        peer_bytes++;
        peer_length--;
    }
    MPI peer = peer_length > 0 && peer_length <= CVAULTSECRET_GROUP_BYTES ? scan(peer_bytes, peer_length) : NULL;
    MPI shared = gcry.gcry_mpi_new(0);
    CVaultSecret_Agreement result = CVAULTSECRET_AGREEMENT_FAILED;
    if (limit && prime && shared) {
        if (peer == NULL || gcry.gcry_mpi_cmp_ui(peer, 1) <= 0 || gcry.gcry_mpi_cmp(peer, limit) >= 0) {
            result = CVAULTSECRET_AGREEMENT_INVALID_PEER;
        } else {
            gcry.gcry_mpi_powm(shared, peer, pair->exponent, prime);
            if (!print_fixed(shared, shared_bytes)) {
                result = CVAULTSECRET_AGREEMENT_FAILED;
            } else if (shared_bytes[0] == 0) {
                result = CVAULTSECRET_AGREEMENT_AMBIGUOUS;
            } else {
                result = CVAULTSECRET_AGREEMENT_AGREED;
            }
            if (result != CVAULTSECRET_AGREEMENT_AGREED) explicit_bzero(shared_bytes, CVAULTSECRET_GROUP_BYTES);
        }
    }
    gcry.gcry_mpi_release(limit);
    gcry.gcry_mpi_release(prime);
    gcry.gcry_mpi_release(peer);
    gcry.gcry_mpi_release(shared);  // wiped as it is freed
    return result;
}

// The provider's side (CVaultSecret_Respond): the same group, exponent size and checks as the
// client's, with a new key pair for each session.
CVaultSecret_Response CVaultSecret_Respond(
    const uint8_t *peer, size_t length, uint8_t public_value[CVAULTSECRET_GROUP_BYTES],
    uint8_t shared[CVAULTSECRET_GROUP_BYTES]) {
    CVaultSecret_InitializeGcrypt();
    for (int attempt = 0; attempt < CVAULTSECRET_KEY_PAIR_ATTEMPTS; attempt++) {
        CVaultSecret_KeyPair pair;
        if (!CVaultSecret_KeyPairMake(&pair)) return CVAULTSECRET_RESPONSE_FAILED;
        CVaultSecret_Agreement agreement = CVaultSecret_KeyAgree(&pair, peer, length, shared);
        memcpy(public_value, pair.public_value, CVAULTSECRET_GROUP_BYTES);
        CVaultSecret_KeyPairRelease(&pair);
        switch (agreement) {
        case CVAULTSECRET_AGREEMENT_AGREED:
            return CVAULTSECRET_RESPONSE_AGREED;
        case CVAULTSECRET_AGREEMENT_INVALID_PEER:
            return CVAULTSECRET_RESPONSE_INVALID_PEER;
        case CVAULTSECRET_AGREEMENT_AMBIGUOUS:
            continue;
        case CVAULTSECRET_AGREEMENT_FAILED:
            return CVAULTSECRET_RESPONSE_FAILED;
        }
    }
    return CVAULTSECRET_RESPONSE_FAILED;
}
