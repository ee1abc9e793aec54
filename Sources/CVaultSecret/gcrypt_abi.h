// Private to the shim: our own copies of the few libgcrypt declarations that the session's key
// agreement (KeyAgreement.c) needs: big-number arithmetic, which Swift cannot reach otherwise. libgcrypt is libsecret's
// dependency, so it is loaded with libsecret and its functions resolve through libsecret's handle, as GLib's do.
//
// As in glib_abi.h, Tests/VaultCoreTests/SecretServiceABITests.swift compiles these copies
// against the real <gcrypt.h> with CVAULTSECRET_ABI_CHECK defined: every constant must have
// the real value and every prototype the real type.
#ifndef CVAULTSECRET_GCRYPT_ABI_H
#define CVAULTSECRET_GCRYPT_ABI_H

#include <stddef.h>

#define CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED 38u  // GCRYCTL_INITIALIZATION_FINISHED
#define CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED_P 39u  // GCRYCTL_INITIALIZATION_FINISHED_P
#define CVAULTSECRET_GCRYMPI_FMT_USG 5u  // GCRYMPI_FMT_USG: unsigned big-endian

#define CVAULTSECRET_STANDIN_gcry_error_t unsigned int
#define CVAULTSECRET_STANDIN_gcry_ctl_cmds unsigned int
#define CVAULTSECRET_STANDIN_gcry_mpi_format unsigned int

#ifdef CVAULTSECRET_ABI_CHECK
#define CVAULTSECRET_T_gcry_error_t gcry_error_t
#define CVAULTSECRET_T_gcry_ctl_cmds enum gcry_ctl_cmds
#define CVAULTSECRET_T_gcry_mpi_format enum gcry_mpi_format
#define CVAULTSECRET_T_gcry_mpi_t gcry_mpi_t
#else
struct CVaultSecret_GcryMPI;
#define CVAULTSECRET_T_gcry_error_t CVAULTSECRET_STANDIN_gcry_error_t
#define CVAULTSECRET_T_gcry_ctl_cmds CVAULTSECRET_STANDIN_gcry_ctl_cmds
#define CVAULTSECRET_T_gcry_mpi_format CVAULTSECRET_STANDIN_gcry_mpi_format
#define CVAULTSECRET_T_gcry_mpi_t struct CVaultSecret_GcryMPI *
#endif

// Every libgcrypt function the shim resolves with dlsym: X(return type, name, (parameter types)).
// gcry_control is variadic; the shim calls it from C only, with the arguments its commands take.
#define CVAULTSECRET_GCRYPT_FUNCTIONS(X)                                                                    \
    X(const char *, gcry_check_version, (const char *))                                                     \
    X(CVAULTSECRET_T_gcry_error_t, gcry_control, (CVAULTSECRET_T_gcry_ctl_cmds, ...))                       \
    X(CVAULTSECRET_T_gcry_error_t, gcry_mpi_scan,                                                           \
      (CVAULTSECRET_T_gcry_mpi_t *, CVAULTSECRET_T_gcry_mpi_format, const void *, size_t, size_t *))        \
    X(CVAULTSECRET_T_gcry_error_t, gcry_mpi_print,                                                          \
      (CVAULTSECRET_T_gcry_mpi_format, unsigned char *, size_t, size_t *, const CVAULTSECRET_T_gcry_mpi_t)) \
    X(CVAULTSECRET_T_gcry_mpi_t, gcry_mpi_new, (unsigned int))                                              \
    X(void, gcry_mpi_release, (CVAULTSECRET_T_gcry_mpi_t))                                                  \
    X(int, gcry_mpi_cmp, (const CVAULTSECRET_T_gcry_mpi_t, const CVAULTSECRET_T_gcry_mpi_t))                \
    X(int, gcry_mpi_cmp_ui, (const CVAULTSECRET_T_gcry_mpi_t, unsigned long))                               \
    X(void, gcry_mpi_powm,                                                                                  \
      (CVAULTSECRET_T_gcry_mpi_t, const CVAULTSECRET_T_gcry_mpi_t, const CVAULTSECRET_T_gcry_mpi_t,         \
       const CVAULTSECRET_T_gcry_mpi_t))

#endif
