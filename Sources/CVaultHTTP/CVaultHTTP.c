// The shim's loader and the one request function. See include/CVaultHTTP.h for the contract and
// curl_abi.h for the copied libcurl declarations and how they are checked.
#define _GNU_SOURCE
#include "CVaultHTTP.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CVaultLoader.h"
#include "curl_abi.h"

// MARK: Loading

// One function pointer per entry of CVAULTHTTP_FUNCTIONS, named after the function.
CVAULTLOADER_TABLE(CVaultHTTP_Functions, CVAULTHTTP_FUNCTIONS);

// MARK: libcurl's memory

// libcurl keeps what it receives in its own buffers (a receive buffer per handle, header and
// chunk buffers) and frees them without zeroing: a response's copy of a secret would stay in
// freed memory. curl_global_init_mem gives libcurl these allocation functions instead of the C
// library's, so every block libcurl frees, or moves when it grows, is zeroed first. What a
// handle still holds while it is open, and what the TLS library allocates itself, is not
// covered (docs/design.md).

static void wiping_free(void *block) {
    if (block == NULL) return;
    explicit_bzero(block, malloc_usable_size(block));
    free(block);
}

static void *wiping_realloc(void *block, size_t size) {
    if (block == NULL) return malloc(size);
    size_t usable = malloc_usable_size(block);
    if (size <= usable && size > 0) return block;
    void *grown = malloc(size > 0 ? size : 1);
    if (grown == NULL) return NULL;
    memcpy(grown, block, usable < size ? usable : size);
    wiping_free(block);
    return grown;
}

static char *wiping_strdup(const char *text) {
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (copy != NULL) memcpy(copy, text, length);
    return copy;
}

static CVaultLoader_Library library = CVAULTLOADER_LIBRARY_INIT;
static CVaultHTTP_Functions fn;  // written once, under the library's lock, before it counts as loaded

// CVaultLoader's ready hook: curl_global_init_mem (with the wiping allocators above), not
// thread-safe in older libcurl, runs here, under the loader's lock, once, before any handle
// exists.
static char *ready(void *handle, const void *table) {
    (void)handle;
    (void)table;
    if (fn.curl_global_init_mem(
            CVAULTHTTP_CURL_GLOBAL_DEFAULT, malloc, wiping_free, wiping_realloc, wiping_strdup, calloc)
        != CVAULTHTTP_CURLE_OK) {
        return CVaultLoader_Reason("libcurl", ": curl_global_init_mem failed");
    }
    return NULL;
}

char *_Nullable CVaultHTTP_Load(const char *_Nonnull soname) {
    return CVAULTLOADER_LOAD(&library, soname, CVaultHTTP_Functions, &fn, ready);
}

// MARK: Collecting the response

// A growing buffer. It may hold a secret, so it never uses realloc (which can leave a copy
// behind): growth copies into a new block and wipes the old one.
typedef struct Buffer {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    size_t limit;
    bool tooLarge;
} Buffer;

static void buffer_wipe_free(uint8_t *bytes, size_t capacity) {
    if (bytes == NULL) return;
    explicit_bzero(bytes, capacity);
    free(bytes);
}

static bool buffer_append(Buffer *buffer, const void *data, size_t count) {
    if (count > buffer->limit - buffer->length) {
        buffer->tooLarge = true;
        return false;
    }
    size_t needed = buffer->length + count + 1;  // room for a terminating NUL
    if (needed > buffer->capacity) {
        size_t capacity = buffer->capacity < 4096 ? 4096 : buffer->capacity;
        while (capacity < needed) capacity *= 2;
        uint8_t *grown = malloc(capacity);
        if (grown == NULL) return false;
        if (buffer->length > 0) memcpy(grown, buffer->bytes, buffer->length);
        buffer_wipe_free(buffer->bytes, buffer->capacity);
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, data, count);
    buffer->length += count;
    buffer->bytes[buffer->length] = 0;
    return true;
}

static size_t write_body(char *data, size_t size, size_t count, void *context) {
    // Returning less than size * count makes curl stop with CURLE_WRITE_ERROR.
    return buffer_append(context, data, size * count) ? size * count : 0;
}

static size_t write_header(char *data, size_t size, size_t count, void *context) {
    Buffer *headers = context;
    size_t length = size * count;
    // A status line starts a new response (after a 100 Continue, say): keep only the last one's
    // headers, and not the status line itself.
    if (length >= 5 && memcmp(data, "HTTP/", 5) == 0) {
        headers->length = 0;
        return length;
    }
    return buffer_append(headers, data, length) ? length : 0;
}

// MARK: One request

static CVaultHTTP_Failure classify(unsigned int code) {
    switch (code) {
    case CVAULTHTTP_CURLE_COULDNT_RESOLVE_PROXY:
    case CVAULTHTTP_CURLE_COULDNT_RESOLVE_HOST:
    case CVAULTHTTP_CURLE_COULDNT_CONNECT:
    case CVAULTHTTP_CURLE_PROXY:
        return CVaultHTTP_FailureConnect;
    case CVAULTHTTP_CURLE_OPERATION_TIMEDOUT:
        return CVaultHTTP_FailureTimeout;
    case CVAULTHTTP_CURLE_SSL_CONNECT_ERROR:
    case CVAULTHTTP_CURLE_SSL_CERTPROBLEM:
    case CVAULTHTTP_CURLE_PEER_FAILED_VERIFICATION:
    case CVAULTHTTP_CURLE_SSL_CACERT_BADFILE:
        return CVaultHTTP_FailureTLS;
    case CVAULTHTTP_CURLE_UNSUPPORTED_PROTOCOL:
    case CVAULTHTTP_CURLE_URL_MALFORMAT:
        return CVaultHTTP_FailureRequest;
    default:
        return CVaultHTTP_FailureExchange;
    }
}

static void fail(CVaultHTTP_Result *result, CVaultHTTP_Failure failure, const char *reason) {
    result->failure = failure;
    snprintf(result->reason, sizeof result->reason, "%s", reason);
}

// MARK: Sessions

struct CVaultHTTP_Session {
    pthread_mutex_t lock;  // one request at a time: a curl handle is not thread-safe
    void *curl;  // created by the first request
};

CVaultHTTP_Session *_Nonnull CVaultHTTP_SessionCreate(void) {
    CVaultHTTP_Session *session = calloc(1, sizeof *session);
    if (session == NULL) abort();
    pthread_mutex_init(&session->lock, NULL);
    return session;
}

void CVaultHTTP_SessionFree(CVaultHTTP_Session *_Nonnull session) {
    if (session->curl != NULL) fn.curl_easy_cleanup(session->curl);
    pthread_mutex_destroy(&session->lock);
    free(session);
}

static void perform(void *curl, const CVaultHTTP_Request *request, CVaultHTTP_Result *result);

void CVaultHTTP_Perform(
    CVaultHTTP_Session *_Nonnull session, const CVaultHTTP_Request *_Nonnull request,
    CVaultHTTP_Result *_Nonnull result) {
    memset(result, 0, sizeof *result);
    if (!CVaultLoader_IsLoaded(&library)) {
        fail(result, CVaultHTTP_FailureRequest, "libcurl is not loaded");
        return;
    }
    pthread_mutex_lock(&session->lock);
    if (session->curl == NULL) {
        session->curl = fn.curl_easy_init();
    } else {
        // Forgets every option of the last request (headers, body, method, callbacks' data) and
        // keeps its open connections.
        fn.curl_easy_reset(session->curl);
    }
    if (session->curl == NULL) {
        fail(result, CVaultHTTP_FailureRequest, "curl_easy_init failed");
    } else {
        perform(session->curl, request, result);
    }
    pthread_mutex_unlock(&session->lock);
}

static void perform(void *curl, const CVaultHTTP_Request *request, CVaultHTTP_Result *result) {
    struct CVaultHTTP_CurlSList *headers = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < request->headerCount; i++) {
        struct CVaultHTTP_CurlSList *appended = fn.curl_slist_append(headers, request->headers[i]);
        if (appended == NULL) ok = false;
        headers = appended != NULL ? appended : headers;
    }
    // No "Expect: 100-continue" pause before a body: the servers vault talks to answer at once.
    struct CVaultHTTP_CurlSList *appended = ok ? fn.curl_slist_append(headers, "Expect:") : NULL;
    if (appended == NULL) ok = false;
    headers = appended != NULL ? appended : headers;
    if (!ok) {
        fn.curl_slist_free_all(headers);
        fail(result, CVaultHTTP_FailureRequest, "out of memory");
        return;
    }

    Buffer body = {.limit = request->maxBodyLength};
    Buffer head = {.limit = 1 << 20};
    char error[CVAULTHTTP_CURL_ERROR_SIZE] = {0};
    long timeout = request->timeoutMilliseconds > 0 ? request->timeoutMilliseconds : 1;
    long connectTimeout = request->connectTimeoutMilliseconds > 0 && request->connectTimeoutMilliseconds < timeout
        ? request->connectTimeoutMilliseconds
        : timeout;
    unsigned int code = CVAULTHTTP_CURLE_OK;
    // Each setopt is checked; the first failure stops the request.
#define SET(option, value) \
    if (code == CVAULTHTTP_CURLE_OK) code = fn.curl_easy_setopt(curl, option, value)
    SET(CVAULTHTTP_CURLOPT_ERRORBUFFER, error);
    SET(CVAULTHTTP_CURLOPT_URL, request->url);
    SET(CVAULTHTTP_CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for name resolution timeouts
    SET(CVAULTHTTP_CURLOPT_TIMEOUT_MS, timeout);
    SET(CVAULTHTTP_CURLOPT_CONNECTTIMEOUT_MS, connectTimeout);
    SET(CVAULTHTTP_CURLOPT_FOLLOWLOCATION, 0L);
    SET(CVAULTHTTP_CURLOPT_HTTPHEADER, headers);
    SET(CVAULTHTTP_CURLOPT_WRITEFUNCTION, write_body);
    SET(CVAULTHTTP_CURLOPT_WRITEDATA, &body);
    SET(CVAULTHTTP_CURLOPT_HEADERFUNCTION, write_header);
    SET(CVAULTHTTP_CURLOPT_HEADERDATA, &head);
    // An empty string turns libcurl's own reading of http_proxy and friends off.
    SET(CVAULTHTTP_CURLOPT_PROXY, request->proxy != NULL ? request->proxy : "");
    if (request->noProxy != NULL) SET(CVAULTHTTP_CURLOPT_NOPROXY, request->noProxy);
    if (request->caFile != NULL) SET(CVAULTHTTP_CURLOPT_CAINFO, request->caFile);
    if (request->skipVerify) {
        SET(CVAULTHTTP_CURLOPT_SSL_VERIFYPEER, 0L);
        SET(CVAULTHTTP_CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (strcmp(request->method, "GET") == 0 && request->body == NULL) {
        SET(CVAULTHTTP_CURLOPT_HTTPGET, 1L);
    } else if (strcmp(request->method, "HEAD") == 0) {
        SET(CVAULTHTTP_CURLOPT_NOBODY, 1L);
    } else {
        if (request->body != NULL) {
            SET(CVAULTHTTP_CURLOPT_POST, 1L);
            SET(CVAULTHTTP_CURLOPT_POSTFIELDSIZE_LARGE, (int64_t)request->bodyLength);
            SET(CVAULTHTTP_CURLOPT_POSTFIELDS, (const char *)request->body);
        }
        if (strcmp(request->method, "POST") != 0) SET(CVAULTHTTP_CURLOPT_CUSTOMREQUEST, request->method);
    }
#undef SET
    if (code == CVAULTHTTP_CURLE_OK) code = fn.curl_easy_perform(curl);
    if (code == CVAULTHTTP_CURLE_OK) {
        long status = 0;
        fn.curl_easy_getinfo(curl, CVAULTHTTP_CURLINFO_RESPONSE_CODE, &status);
        result->status = status;
        result->body = body.bytes;
        result->bodyLength = body.length;
        result->headers = (char *)head.bytes;
        result->headersLength = head.length;
    } else {
        if (body.tooLarge) {
            fail(result, CVaultHTTP_FailureTooLarge, "the response is too large");
        } else {
            fail(result, classify(code), error[0] != 0 ? error : fn.curl_easy_strerror(code));
        }
        int64_t connectMicroseconds = 0;
        if (fn.curl_easy_getinfo(curl, CVAULTHTTP_CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
            == CVAULTHTTP_CURLE_OK) {
            result->connected = connectMicroseconds > 0;
        }
        buffer_wipe_free(body.bytes, body.capacity);
        buffer_wipe_free(head.bytes, head.capacity);
    }
    // The handle keeps pointers to the header list and the error buffer until it is reset or
    // reused: clear them before both go away.
    fn.curl_easy_setopt(curl, CVAULTHTTP_CURLOPT_HTTPHEADER, NULL);
    fn.curl_easy_setopt(curl, CVAULTHTTP_CURLOPT_ERRORBUFFER, NULL);
    fn.curl_slist_free_all(headers);
}

void CVaultHTTP_ResultClear(CVaultHTTP_Result *_Nonnull result) {
    if (result->body != NULL) explicit_bzero(result->body, result->bodyLength);
    free(result->body);
    free(result->headers);
    result->body = NULL;
    result->bodyLength = 0;
    result->headers = NULL;
    result->headersLength = 0;
}
