// Private to the shim: our own copies of the sd-bus declarations (libsystemd's <systemd/sd-bus.h>)
// that the direct read (DirectRead.c) needs.
//
// Why copies: as for libsecret (glib_abi.h), libsystemd is loaded with dlopen when a read first
// needs it, so vault builds where its headers are not installed and runs where it is absent.
// Tests/VaultCoreTests/SecretServiceABITests.swift compiles these copies against the real header
// with CVAULTSECRET_ABI_CHECK defined: every prototype must have the real function's type.
#ifndef CVAULTSECRET_SDBUS_ABI_H
#define CVAULTSECRET_SDBUS_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef CVAULTSECRET_ABI_CHECK
#define CVAULTSECRET_T_sd_bus sd_bus
#define CVAULTSECRET_T_sd_bus_message sd_bus_message
#define CVAULTSECRET_T_sd_bus_slot sd_bus_slot
#define CVAULTSECRET_T_sd_bus_error sd_bus_error
#define CVAULTSECRET_T_sd_bus_message_handler_t sd_bus_message_handler_t
#else
// Objects the shim only passes along stay incomplete types.
struct CVaultSecret_SdBus;
struct CVaultSecret_SdBusMessage;
struct CVaultSecret_SdBusSlot;
struct CVaultSecret_SdBusError;
#define CVAULTSECRET_T_sd_bus struct CVaultSecret_SdBus
#define CVAULTSECRET_T_sd_bus_message struct CVaultSecret_SdBusMessage
#define CVAULTSECRET_T_sd_bus_slot struct CVaultSecret_SdBusSlot
#define CVAULTSECRET_T_sd_bus_error struct CVaultSecret_SdBusError
typedef int (*CVaultSecret_SdBusHandler)(CVAULTSECRET_T_sd_bus_message *, void *, CVAULTSECRET_T_sd_bus_error *);
#define CVAULTSECRET_T_sd_bus_message_handler_t CVaultSecret_SdBusHandler
#endif

// Every sd-bus function the direct read resolves with dlsym: X(return type, name, (parameter
// types)). All are in libsystemd since version 241 (sd_bus_close_unref is the latest of them).
#define CVAULTSECRET_SDBUS_FUNCTIONS(X)                                                                     \
    X(int, sd_bus_open_user, (CVAULTSECRET_T_sd_bus **))                                                    \
    X(int, sd_bus_is_ready, (CVAULTSECRET_T_sd_bus *))                                                      \
    X(int, sd_bus_process, (CVAULTSECRET_T_sd_bus *, CVAULTSECRET_T_sd_bus_message **))                     \
    X(int, sd_bus_wait, (CVAULTSECRET_T_sd_bus *, uint64_t))                                                \
    X(CVAULTSECRET_T_sd_bus *, sd_bus_close_unref, (CVAULTSECRET_T_sd_bus *))                               \
    X(int, sd_bus_message_new_method_call,                                                                  \
      (CVAULTSECRET_T_sd_bus *, CVAULTSECRET_T_sd_bus_message **, const char *, const char *, const char *, \
       const char *))                                                                                       \
    X(int, sd_bus_message_set_auto_start, (CVAULTSECRET_T_sd_bus_message *, int))                           \
    X(int, sd_bus_message_append_basic, (CVAULTSECRET_T_sd_bus_message *, char, const void *))              \
    X(int, sd_bus_message_append_array, (CVAULTSECRET_T_sd_bus_message *, char, const void *, size_t))      \
    X(int, sd_bus_message_open_container, (CVAULTSECRET_T_sd_bus_message *, char, const char *))            \
    X(int, sd_bus_message_close_container, (CVAULTSECRET_T_sd_bus_message *))                               \
    X(int, sd_bus_call,                                                                                     \
      (CVAULTSECRET_T_sd_bus *, CVAULTSECRET_T_sd_bus_message *, uint64_t, CVAULTSECRET_T_sd_bus_error *,   \
       CVAULTSECRET_T_sd_bus_message **))                                                                   \
    X(int, sd_bus_call_async,                                                                               \
      (CVAULTSECRET_T_sd_bus *, CVAULTSECRET_T_sd_bus_slot **, CVAULTSECRET_T_sd_bus_message *,             \
       CVAULTSECRET_T_sd_bus_message_handler_t, void *, uint64_t))                                          \
    X(CVAULTSECRET_T_sd_bus_slot *, sd_bus_slot_unref, (CVAULTSECRET_T_sd_bus_slot *))                      \
    X(int, sd_bus_message_is_method_error, (CVAULTSECRET_T_sd_bus_message *, const char *))                 \
    X(int, sd_bus_message_enter_container, (CVAULTSECRET_T_sd_bus_message *, char, const char *))           \
    X(int, sd_bus_message_exit_container, (CVAULTSECRET_T_sd_bus_message *))                                \
    X(int, sd_bus_message_read_basic, (CVAULTSECRET_T_sd_bus_message *, char, void *))                      \
    X(int, sd_bus_message_read_array, (CVAULTSECRET_T_sd_bus_message *, char, const void **, size_t *))     \
    X(int, sd_bus_message_skip, (CVAULTSECRET_T_sd_bus_message *, const char *))                            \
    X(int, sd_bus_message_peek_type, (CVAULTSECRET_T_sd_bus_message *, char *, const char **))              \
    X(CVAULTSECRET_T_sd_bus_message *, sd_bus_message_ref, (CVAULTSECRET_T_sd_bus_message *))               \
    X(CVAULTSECRET_T_sd_bus_message *, sd_bus_message_unref, (CVAULTSECRET_T_sd_bus_message *))

#endif
