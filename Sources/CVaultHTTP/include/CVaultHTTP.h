// CVaultHTTP: the C edge of vault's HTTP client (Sources/VaultSystem/HTTP/).
//
// The shim exists for what Swift cannot do itself:
//   - load libcurl at run time (dlopen/dlsym), so vault has no link-time dependency on libcurl
//     and the file and Secret Service backends never load it;
//   - call curl_easy_setopt and curl_easy_getinfo, which are variadic;
//   - collect the response through curl's C callbacks.
// curl's types never leave this module: one request goes in as plain C values, one response
// comes out as malloc'd bytes. It holds no policy (which URL, which headers, what a status
// means): that is decided in Swift (Sources/VaultSystem/HTTP/HTTPClient.swift, the only
// importer).
#ifndef CVAULTHTTP_H
#define CVAULTHTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// MARK: Loading

/// Loads `soname` (normally "libcurl.so.4") with dlopen, resolves every function the shim uses
/// and initialises libcurl once. Safe to call more than once and from any thread; the first
/// library that loads completely is the one used. Returns NULL on success, or the reason as a
/// malloc'd string that the caller frees with free().
char *_Nullable CVaultHTTP_Load(const char *_Nonnull soname);

// MARK: One request

/// One HTTP request. Every pointer is borrowed for the duration of CVaultHTTP_Perform.
typedef struct CVaultHTTP_Request {
    /// "GET", "POST", "PUT", "DELETE", "LIST", ...
    const char *_Nonnull method;
    const char *_Nonnull url;
    /// `count` header lines, each "Name: value".
    const char *_Nonnull const *_Nullable headers;
    size_t headerCount;
    /// The body, sent with Content-Length; NULL (and 0) for none.
    const uint8_t *_Nullable body;
    size_t bodyLength;
    /// The whole exchange (connect, send, receive) must finish within this many milliseconds.
    long timeoutMilliseconds;
    /// The connection must be made within this many milliseconds (at most timeoutMilliseconds;
    /// 0 for the same): a caller with other servers to try gives up on a silent one early.
    long connectTimeoutMilliseconds;
    /// A PEM file of CA certificates to trust instead of the system store; NULL for the system's.
    const char *_Nullable caFile;
    /// Turns certificate and host name verification off.
    bool skipVerify;
    /// The proxy to use ("http://host:port"); NULL or "" for none. libcurl's own reading of the
    /// proxy variables is switched off: the caller decides from the environment it was given.
    const char *_Nullable proxy;
    /// Hosts not to proxy (NO_PROXY syntax); NULL for none.
    const char *_Nullable noProxy;
    /// The most response body bytes accepted; a larger body fails with CVaultHTTP_FailureTooLarge.
    size_t maxBodyLength;
} CVaultHTTP_Request;

/// Why a request got no response.
typedef enum CVaultHTTP_Failure {
    CVaultHTTP_FailureNone = 0,
    /// Could not connect: refused, unreachable, name not resolved.
    CVaultHTTP_FailureConnect = 1,
    /// The time ran out (also a server that accepts and never answers).
    CVaultHTTP_FailureTimeout = 2,
    /// TLS: handshake failed, certificate not trusted, CA file unusable.
    CVaultHTTP_FailureTLS = 3,
    /// The connection broke, or the server answered with something that is not HTTP.
    CVaultHTTP_FailureExchange = 4,
    /// The response body is larger than maxBodyLength.
    CVaultHTTP_FailureTooLarge = 5,
    /// The request itself: a malformed URL, an unsupported scheme, out of memory.
    CVaultHTTP_FailureRequest = 6,
} CVaultHTTP_Failure;

/// The outcome of one request. Release with CVaultHTTP_ResultClear.
typedef struct CVaultHTTP_Result {
    CVaultHTTP_Failure failure;
    /// When failure is not None: curl's description, NUL-terminated (it names the host, never
    /// a header or the body).
    char reason[256];
    /// When failure is not None: whether the connection had been made. A timeout after it is a
    /// server that does not answer; before it, one that did not accept the connection.
    bool connected;
    /// The HTTP status of the response.
    long status;
    /// The response's header block (the last response's, "Name: value\r\n" lines, without the
    /// status line), malloc'd; owned by the result.
    char *_Nullable headers;
    size_t headersLength;
    /// The response body, malloc'd; owned by the result, wiped when cleared.
    uint8_t *_Nullable body;
    size_t bodyLength;
} CVaultHTTP_Result;

/// A connection kept between requests: one curl handle, whose open connections (HTTP keep-alive)
/// and TLS sessions later requests to the same server reuse. A command that makes many requests
/// (listing 1,000 secrets) then pays for one connection, not 1,000.
typedef struct CVaultHTTP_Session CVaultHTTP_Session;

/// A new session; no libcurl call is made until its first request. Free it with
/// CVaultHTTP_SessionFree. Aborts when out of memory.
CVaultHTTP_Session *_Nonnull CVaultHTTP_SessionCreate(void);

/// Closes the session's connections and frees it.
void CVaultHTTP_SessionFree(CVaultHTTP_Session *_Nonnull session);

/// Performs the request on the session's handle and fills `result` (which it first zeroes).
/// Blocking; thread-safe (requests on one session wait for each other). Every option is set
/// afresh for each request. Redirects are never followed: a 3xx is returned as is.
void CVaultHTTP_Perform(
    CVaultHTTP_Session *_Nonnull session, const CVaultHTTP_Request *_Nonnull request,
    CVaultHTTP_Result *_Nonnull result);

/// Wipes and frees the result's body and headers. Safe to call twice.
void CVaultHTTP_ResultClear(CVaultHTTP_Result *_Nonnull result);

#endif
