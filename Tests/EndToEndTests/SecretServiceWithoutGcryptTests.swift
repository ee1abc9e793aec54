import Foundation
import Testing
import VaultTestSupport

/// A libsecret built without libgcrypt: its session is "plain", and it brings no libgcrypt for
/// vault's own session. vault then asks for a plain session too, as that libsecret would, rather
/// than failing to load (which `auto` read as "no Secret Service" and quietly used the file).
///
/// The stand-in is a `libsecret-1.so.0` found first through LD_LIBRARY_PATH: it defines the
/// libsecret functions vault uses, each forwarding to the real library opened with RTLD_LOCAL,
/// and depends on GLib alone, so nothing of libgcrypt can be found through it.
@Suite("Secret Service: libsecret without libgcrypt")
struct SecretServiceWithoutGcryptTests {
    /// The libsecret functions the shim resolves (glib_abi.h), with their types.
    static let forwarded = [
        ("char *", "secret_collection_get_label", "(SecretCollection *a)", "(a)"),
        (
            "SecretService *", "secret_service_get_sync", "(SecretServiceFlags a, GCancellable *b, GError **c)",
            "(a, b, c)"
        ),
        (
            "SecretCollection *", "secret_collection_for_alias_sync",
            "(SecretService *a, const gchar *b, SecretCollectionFlags c, GCancellable *d, GError **e)",
            "(a, b, c, d, e)"
        ),
        ("gboolean", "secret_collection_get_locked", "(SecretCollection *a)", "(a)"),
        ("void", "secret_service_disconnect", "(void)", "()"),
        (
            "gint", "secret_service_unlock_sync",
            "(SecretService *a, GList *b, GCancellable *c, GList **d, GError **e)", "(a, b, c, d, e)"
        ),
        (
            "gint", "secret_service_unlock_dbus_paths_sync",
            "(SecretService *a, const gchar **b, GCancellable *c, gchar ***d, GError **e)", "(a, b, c, d, e)"
        ),
        ("gboolean", "secret_item_delete_sync", "(SecretItem *a, GCancellable *b, GError **c)", "(a, b, c)"),
        (
            "SecretItem *", "secret_item_new_for_dbus_path_sync",
            "(SecretService *a, const gchar *b, SecretItemFlags c, GCancellable *d, GError **e)", "(a, b, c, d, e)"
        ),
        (
            "GVariant *", "secret_service_prompt_at_dbus_path_sync",
            "(SecretService *a, const gchar *b, GCancellable *c, const GVariantType *d, GError **e)", "(a, b, c, d, e)"
        ),
    ]

    /// Builds the stand-in in `directory` as libsecret-1.so.0; its constructor creates `marker`.
    static func buildStandIn(in directory: URL, marker: String) throws {
        let compiler = findExecutable("cc")
        let pkgConfig = findExecutable("pkg-config")
        try requireComponent(compiler == nil || pkgConfig == nil ? "cc or pkg-config is not installed" : nil)
        let cflags = try runTool(pkgConfig!, ["--cflags", "libsecret-1"], timeout: 30)
        let libs = try runTool(pkgConfig!, ["--libs", "gio-2.0"], timeout: 30)
        try requireComponent(
            cflags.status == 0 && libs.status == 0 ? nil : "libsecret-1-dev is not installed: \(cflags.stderr)")
        let functions = Self.forwarded.map { result, name, parameters, arguments in
            let call = "((\(result) (*)\(parameters))real(\"\(name)\"))\(arguments)"
            return "\(result) \(name)\(parameters) { \(result == "void" ? "" : "return ")\(call); }"
        }
        let source = """
            #include <dlfcn.h>
            #include <fcntl.h>
            #include <stdlib.h>
            #include <unistd.h>
            #include <libsecret/secret.h>
            static void *real(const char *name) {
                static void *library;
                if (library == NULL) library = dlopen("\(Self.realLibrary)", RTLD_NOW | RTLD_LOCAL);
                if (library == NULL) abort();
                return dlsym(library, name);
            }
            __attribute__((constructor)) static void loaded(void) {
                int fd = open("\(marker)", O_WRONLY | O_CREAT, 0600);
                if (fd >= 0) close(fd);
            }
            \(functions.joined(separator: "\n"))
            """
        let file = directory.appendingPathComponent("stand-in.c")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let words = (cflags.stdoutText + " " + libs.stdoutText).split(whereSeparator: { $0 == " " || $0 == "\n" })
        let output = directory.appendingPathComponent("libsecret-1.so.0").path
        // Without --as-needed: the stand-in calls no GLib function, yet vault finds GLib through it.
        var arguments = [
            "-shared", "-fPIC", "-Wno-deprecated-declarations", "-o", output, file.path, "-Wl,--no-as-needed",
        ]
        arguments += words.map(String.init)
        arguments.append("-ldl")
        let built = try runTool(compiler!, arguments, timeout: 60)
        #expect(built.status == 0, "cc: \(built.stderr)")
    }

    /// The system's libsecret, by its absolute path.
    static var realLibrary: String {
        ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .map { $0 + "/libsecret-1.so.0" }
            .first { FileManager.default.fileExists(atPath: $0) } ?? "/usr/lib/x86_64-linux-gnu/libsecret-1.so.0"
    }

    @Test("vault writes and reads through a plain session, and `auto` uses the keyring, not the file")
    func plainSession() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        try SessionKeyring.require(&vault)
        let marker = vault.path("stand-in-loaded")
        try Self.buildStandIn(in: vault.directory, marker: marker)
        let standIn = ["LD_LIBRARY_PATH": vault.directory.path, "VAULT_SERVICE": "vault-e2e-no-gcrypt"]
        // Nothing of libgcrypt is reachable through the stand-in.
        #expect(try runTool("/usr/bin/ldd", [vault.path("libsecret-1.so.0")]).stdoutText.contains("gcrypt") == false)

        // `auto` looks for a keyring only where no file is named.
        let set = try vault.run(
            ["--backend", "auto", "set", "token"], stdin: Array("plain value".utf8), env: standIn, unset: ["VAULT_FILE"]
        )
        set.expectSuccess()
        #expect(set.stderr.isEmpty, "\(set.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the stand-in was not loaded")
        #expect(!FileManager.default.fileExists(atPath: vault.path(".local/share/vault")), "auto used the file")
        let get = try vault.run(["--backend", "secret-service", "get", "token"], env: standIn)
        get.expectSuccess()
        #expect(get.stderr.isEmpty, "\(get.stderr)")
        #expect(get.stdoutText == "plain value")
        // The real libsecret (and vault's encrypted session) reads what went through the plain one.
        let service = ["VAULT_SERVICE": "vault-e2e-no-gcrypt"]
        let real = try vault.run(["--backend", "secret-service", "get", "token"], env: service)
        #expect(real.stdoutText == "plain value", "\(real.stderr)")
        _ = try vault.run(["--backend", "secret-service", "rm", "token"], env: service)
    }
}
