import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService

/// The shim declares its own copies of GLib and libsecret types (it loads libsecret at run time
/// and must build without its headers). These tests hold the copies to the real headers, and
/// check that nothing links libsecret or GLib.
@Suite("Secret Service C shim")
struct SecretServiceABITests {
    @Test("the shim's copies of GLib, libsecret and libgcrypt declarations match the real headers")
    func declarationsMatchHeaders() throws {
        guard
            let ran = try ABICheck.run(
                Self.checkProgram, package: "libsecret-1", shim: "CVaultSecret", libraries: ["-lgcrypt"])
        else { return }
        #expect(
            ran.stdoutText.split(separator: "\n").map(String.init)
                == [GLibErrorCode.dbusDomain, GLibErrorCode.ioDomain, GLibErrorCode.secretDomain])
    }

    @Test("the direct read's copies of sd-bus declarations match the real header")
    func sdBusDeclarationsMatchHeader() throws {
        let program = """
            #include <systemd/sd-bus.h>
            #include <stdio.h>
            #define CVAULTSECRET_ABI_CHECK 1
            #include "sdbus_abi.h"

            // Initialising a pointer of our type with the real function: any difference in a
            // parameter or the result is an incompatible-pointer-types error (with -Werror).
            #define PROTOTYPE(ret, name, params) \\
                __attribute__((unused)) static ret (*const check_##name) params = &name;
            CVAULTSECRET_SDBUS_FUNCTIONS(PROTOTYPE)

            int main(void) {
                printf("%s\\n", SD_BUS_ERROR_TIMEOUT);
                return 0;
            }
            """
        guard let ran = try ABICheck.run(program, package: "libsystemd", shim: "CVaultSecret") else { return }
        #expect(ran.stdoutText == "org.freedesktop.DBus.Error.Timeout\n")
    }

    @Test("binaries link neither libsecret, GLib nor libsystemd")
    func noLinkTimeDependency() throws {
        let readelf = findExecutable("readelf")
        try requireKeyringComponent(readelf == nil ? "readelf is not installed (binutils)" : nil)
        // This test binary contains VaultCore and the shim, as the vault executable does.
        let dynamic = try runTool(readelf!, ["-d", CommandLine.arguments[0]], timeout: 30)
        try #require(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        for library in ["libsecret", "libglib", "libgio", "libgobject", "libsystemd"] {
            #expect(
                !needed.contains { $0.contains(library) }, "\(library) is linked:\n\(needed.joined(separator: "\n"))")
        }
    }

    /// A C program that fails to compile if a copied declaration differs from the real one,
    /// and prints the error domains' names.
    static var checkProgram: String {
        let codes = GLibErrorCode.checked.map { "SAME(\($0.name), \($0.value))" }.joined(separator: "\n")
        return """
            // The object-path functions (secret-paths.h) are in libsecret's "unstable" part.
            #define SECRET_API_SUBJECT_TO_CHANGE 1
            #include <libsecret/secret.h>
            #include <gcrypt.h>
            #include <stddef.h>
            #include <stdio.h>
            #define CVAULTSECRET_ABI_CHECK 1
            #include "glib_abi.h"
            #include "gcrypt_abi.h"

            #define SAME(a, b) _Static_assert((a) == (b), #a " == " #b);
            #define COMPATIBLE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " ~ " #b);
            #define LAYOUT(ours, theirs, field) \\
                SAME(offsetof(ours, field), offsetof(theirs, field)) \\
                SAME(sizeof(((ours *)0)->field), sizeof(((theirs *)0)->field))

            SAME(sizeof(CVaultSecret_GErrorLayout), sizeof(GError))
            LAYOUT(CVaultSecret_GErrorLayout, GError, domain)
            LAYOUT(CVaultSecret_GErrorLayout, GError, code)
            LAYOUT(CVaultSecret_GErrorLayout, GError, message)
            SAME(sizeof(CVaultSecret_GListLayout), sizeof(GList))
            LAYOUT(CVaultSecret_GListLayout, GList, data)
            LAYOUT(CVaultSecret_GListLayout, GList, next)
            LAYOUT(CVaultSecret_GListLayout, GList, prev)

            SAME(CVAULTSECRET_SECRET_SERVICE_NONE, SECRET_SERVICE_NONE)
            SAME(CVAULTSECRET_SECRET_COLLECTION_NONE, SECRET_COLLECTION_NONE)
            SAME(CVAULTSECRET_SECRET_ITEM_NONE, SECRET_ITEM_NONE)
            SAME(CVAULTSECRET_G_BUS_TYPE_SESSION, G_BUS_TYPE_SESSION)
            SAME(CVAULTSECRET_G_DBUS_CALL_FLAGS_NONE, G_DBUS_CALL_FLAGS_NONE)
            SAME(CVAULTSECRET_G_DBUS_CALL_FLAGS_NO_AUTO_START, G_DBUS_CALL_FLAGS_NO_AUTO_START)
            SAME(CVAULTSECRET_G_DBUS_ERROR_NOT_SUPPORTED, G_DBUS_ERROR_NOT_SUPPORTED)
            SAME(CVAULTSECRET_G_IO_ERROR_INVALID_ARGUMENT, G_IO_ERROR_INVALID_ARGUMENT)

            SAME(CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED, GCRYCTL_INITIALIZATION_FINISHED)
            SAME(CVAULTSECRET_GCRYCTL_INITIALIZATION_FINISHED_P, GCRYCTL_INITIALIZATION_FINISHED_P)
            SAME(CVAULTSECRET_GCRYMPI_FMT_USG, GCRYMPI_FMT_USG)
            COMPATIBLE(CVAULTSECRET_STANDIN_gcry_error_t, gcry_error_t)
            COMPATIBLE(CVAULTSECRET_STANDIN_gcry_ctl_cmds, enum gcry_ctl_cmds)
            COMPATIBLE(CVAULTSECRET_STANDIN_gcry_mpi_format, enum gcry_mpi_format)

            COMPATIBLE(CVAULTSECRET_STANDIN_gboolean, gboolean)
            COMPATIBLE(CVAULTSECRET_STANDIN_guint, guint)
            COMPATIBLE(CVAULTSECRET_STANDIN_guint64, guint64)
            COMPATIBLE(CVAULTSECRET_STANDIN_gsize, gsize)
            COMPATIBLE(CVAULTSECRET_STANDIN_gssize, gssize)
            COMPATIBLE(CVAULTSECRET_STANDIN_GQuark, GQuark)
            COMPATIBLE(CVAULTSECRET_STANDIN_GBusType, GBusType)
            COMPATIBLE(CVAULTSECRET_STANDIN_gint, gint)
            COMPATIBLE(CVAULTSECRET_STANDIN_GType, GType)
            COMPATIBLE(CVAULTSECRET_STANDIN_guint32, guint32)
            COMPATIBLE(CVAULTSECRET_STANDIN_GDBusCallFlags, GDBusCallFlags)
            COMPATIBLE(CVAULTSECRET_STANDIN_SecretServiceFlags, SecretServiceFlags)
            COMPATIBLE(CVAULTSECRET_STANDIN_SecretCollectionFlags, SecretCollectionFlags)
            COMPATIBLE(CVAULTSECRET_STANDIN_SecretItemFlags, SecretItemFlags)
            COMPATIBLE(CVAULTSECRET_STANDIN_GHashFunc, GHashFunc)
            COMPATIBLE(CVAULTSECRET_STANDIN_GEqualFunc, GEqualFunc)
            COMPATIBLE(CVAULTSECRET_STANDIN_GDestroyNotify, GDestroyNotify)

            // Initialising a pointer of our type with the real function: any difference in a
            // parameter or the result is an incompatible-pointer-types error (with -Werror).
            #define PROTOTYPE(ret, name, params) \
                __attribute__((unused)) static ret (*const check_##name) params = &name;
            CVAULTSECRET_FUNCTIONS(PROTOTYPE)
            CVAULTSECRET_GCRYPT_FUNCTIONS(PROTOTYPE)

            \(codes)

            int main(void) {
                printf("%s\\n%s\\n%s\\n", g_quark_to_string(G_DBUS_ERROR), g_quark_to_string(G_IO_ERROR),
                       g_quark_to_string(SECRET_ERROR));
                return 0;
            }
            """
    }
}
