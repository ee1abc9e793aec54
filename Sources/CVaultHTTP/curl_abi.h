// Private to the shim: our own copies of the few libcurl declarations it needs.
//
// Why copies: the shim loads libcurl with dlopen at run time, so vault has no link-time
// dependency on libcurl and builds where its headers (libcurl4-*-dev) are not installed. The
// price is that these declarations must match the real ones. Tests/VaultCoreTests/HTTPABITests.swift
// compiles a C program against the real <curl/curl.h> with CVAULTHTTP_ABI_CHECK defined: every
// option, info and error value here must equal the real one, and every prototype in
// CVAULTHTTP_FUNCTIONS must have the real function's type.
#ifndef CVAULTHTTP_CURL_ABI_H
#define CVAULTHTTP_CURL_ABI_H

#include <stddef.h>
#include <stdint.h>

// Options (curl/curl.h, CURLOPT(name, type, number): type base + number).
#define CVAULTHTTP_CURLOPT_WRITEDATA (10000 + 1)
#define CVAULTHTTP_CURLOPT_URL (10000 + 2)
#define CVAULTHTTP_CURLOPT_PROXY (10000 + 4)
#define CVAULTHTTP_CURLOPT_ERRORBUFFER (10000 + 10)
#define CVAULTHTTP_CURLOPT_WRITEFUNCTION (20000 + 11)
#define CVAULTHTTP_CURLOPT_POSTFIELDS (10000 + 15)
#define CVAULTHTTP_CURLOPT_HTTPHEADER (10000 + 23)
#define CVAULTHTTP_CURLOPT_HEADERDATA (10000 + 29)
#define CVAULTHTTP_CURLOPT_CUSTOMREQUEST (10000 + 36)
#define CVAULTHTTP_CURLOPT_NOBODY 44
#define CVAULTHTTP_CURLOPT_POST 47
#define CVAULTHTTP_CURLOPT_FOLLOWLOCATION 52
#define CVAULTHTTP_CURLOPT_SSL_VERIFYPEER 64
#define CVAULTHTTP_CURLOPT_CAINFO (10000 + 65)
#define CVAULTHTTP_CURLOPT_HEADERFUNCTION (20000 + 79)
#define CVAULTHTTP_CURLOPT_HTTPGET 80
#define CVAULTHTTP_CURLOPT_SSL_VERIFYHOST 81
#define CVAULTHTTP_CURLOPT_NOSIGNAL 99
#define CVAULTHTTP_CURLOPT_POSTFIELDSIZE_LARGE (30000 + 120)
#define CVAULTHTTP_CURLOPT_TIMEOUT_MS 155
#define CVAULTHTTP_CURLOPT_CONNECTTIMEOUT_MS 156
#define CVAULTHTTP_CURLOPT_NOPROXY (10000 + 177)

// Information (curl/curl.h): CURLINFO_LONG + 2; CURLINFO_OFF_T + 52.
#define CVAULTHTTP_CURLINFO_RESPONSE_CODE (0x200000 + 2)
#define CVAULTHTTP_CURLINFO_CONNECT_TIME_T (0x600000 + 52)

// Result codes the shim classifies (curl/curl.h, CURLcode).
#define CVAULTHTTP_CURLE_OK 0
#define CVAULTHTTP_CURLE_UNSUPPORTED_PROTOCOL 1
#define CVAULTHTTP_CURLE_URL_MALFORMAT 3
#define CVAULTHTTP_CURLE_COULDNT_RESOLVE_PROXY 5
#define CVAULTHTTP_CURLE_COULDNT_RESOLVE_HOST 6
#define CVAULTHTTP_CURLE_COULDNT_CONNECT 7
#define CVAULTHTTP_CURLE_WRITE_ERROR 23
#define CVAULTHTTP_CURLE_OPERATION_TIMEDOUT 28
#define CVAULTHTTP_CURLE_SSL_CONNECT_ERROR 35
#define CVAULTHTTP_CURLE_GOT_NOTHING 52
#define CVAULTHTTP_CURLE_SEND_ERROR 55
#define CVAULTHTTP_CURLE_RECV_ERROR 56
#define CVAULTHTTP_CURLE_SSL_CERTPROBLEM 58
#define CVAULTHTTP_CURLE_PEER_FAILED_VERIFICATION 60
#define CVAULTHTTP_CURLE_SSL_CACERT_BADFILE 77
#define CVAULTHTTP_CURLE_PROXY 97

#define CVAULTHTTP_CURL_GLOBAL_DEFAULT 3  // CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32
#define CVAULTHTTP_CURL_ERROR_SIZE 256

// Stand-ins for curl's enum types (the check compares each with the real one).
#define CVAULTHTTP_STANDIN_CURLcode unsigned int
#define CVAULTHTTP_STANDIN_CURLoption unsigned int
#define CVAULTHTTP_STANDIN_CURLINFO unsigned int

#ifdef CVAULTHTTP_ABI_CHECK
// The checking program includes <curl/curl.h> first and compares against real types.
#define CVAULTHTTP_T_CURL CURL
#define CVAULTHTTP_T_curl_slist struct curl_slist
#define CVAULTHTTP_T_CURLcode CURLcode
#define CVAULTHTTP_T_CURLoption CURLoption
#define CVAULTHTTP_T_CURLINFO CURLINFO
#else
// Objects the shim only passes along stay incomplete types (CURL is `void` in curl.h).
struct CVaultHTTP_CurlSList;
#define CVAULTHTTP_T_CURL void
#define CVAULTHTTP_T_curl_slist struct CVaultHTTP_CurlSList
#define CVAULTHTTP_T_CURLcode CVAULTHTTP_STANDIN_CURLcode
#define CVAULTHTTP_T_CURLoption CVAULTHTTP_STANDIN_CURLoption
#define CVAULTHTTP_T_CURLINFO CVAULTHTTP_STANDIN_CURLINFO
#endif

// Every function the shim resolves with dlsym: X(return type, name, (parameter types)).
// curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call them, which is one
// reason this shim exists.
#define CVAULTHTTP_FUNCTIONS(X)                                                                       \
    X(CVAULTHTTP_T_CURLcode, curl_global_init_mem,                                                    \
      (long, void *(*)(size_t), void (*)(void *), void *(*)(void *, size_t), char *(*)(const char *), \
       void *(*)(size_t, size_t)))                                                                    \
    X(CVAULTHTTP_T_CURL *, curl_easy_init, (void))                                                    \
    X(CVAULTHTTP_T_CURLcode, curl_easy_setopt, (CVAULTHTTP_T_CURL *, CVAULTHTTP_T_CURLoption, ...))   \
    X(CVAULTHTTP_T_CURLcode, curl_easy_perform, (CVAULTHTTP_T_CURL *))                                \
    X(CVAULTHTTP_T_CURLcode, curl_easy_getinfo, (CVAULTHTTP_T_CURL *, CVAULTHTTP_T_CURLINFO, ...))    \
    X(void, curl_easy_cleanup, (CVAULTHTTP_T_CURL *))                                                 \
    X(void, curl_easy_reset, (CVAULTHTTP_T_CURL *))                                                   \
    X(const char *, curl_easy_strerror, (CVAULTHTTP_T_CURLcode))                                      \
    X(CVAULTHTTP_T_curl_slist *, curl_slist_append, (CVAULTHTTP_T_curl_slist *, const char *))        \
    X(void, curl_slist_free_all, (CVAULTHTTP_T_curl_slist *))

#endif
