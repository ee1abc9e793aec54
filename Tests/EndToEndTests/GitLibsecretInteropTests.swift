import Foundation
import Testing
import VaultTestSupport

/// On the Secret Service, git credentials are the items git-credential-libsecret reads and writes:
/// a user switches between it and vault either way without losing a password. Debian ships the
/// helper's source with git; it is built here, once per test process, against libsecret.
@Suite("git credential helper and git-credential-libsecret")
struct GitLibsecretInteropTests {
    static let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

    /// The built git-credential-libsecret, or why there is none.
    static let libsecretHelper: Result<String, FixtureFailure> = {
        guard FileManager.default.fileExists(atPath: source), let cc = findExecutable("gcc") ?? findExecutable("cc")
        else {
            return .failure(FixtureFailure(description: "git's contrib source or a C compiler is missing"))
        }
        do {
            let flags = try runTool("/usr/bin/pkg-config", ["--cflags", "--libs", "libsecret-1", "glib-2.0"])
            guard flags.status == 0 else { throw FixtureFailure(description: "pkg-config: \(flags.stderr)") }
            let output = try makeTemporaryDirectory().appendingPathComponent("git-credential-libsecret").path
            let arguments =
                ["-O2", "-o", output, source] + flags.stdoutText.split(whereSeparator: \.isWhitespace).map(String.init)
            let built = try runTool(cc, arguments)
            guard built.status == 0 else { throw FixtureFailure(description: "building it failed: \(built.stderr)") }
            return .success(output)
        } catch {
            return .failure(FixtureFailure(description: "cannot build git-credential-libsecret: \(error)"))
        }
    }()

    /// A runner on the session keyring with the helpers installed; a unique host per test.
    func keyringRunner() throws -> (VaultRunner, String) {
        var vault = try VaultRunner.scripted()
        try SessionKeyring.require(&vault)
        vault.environment["VAULT_BACKEND"] = "secret-service"
        try vault.installHelpers()
        return (vault, "host-\(UUID().uuidString.prefix(8).lowercased()).example")
    }

    func libsecret() throws -> String {
        switch Self.libsecretHelper {
        case .success(let path): return path
        case .failure(let failure):
            try requireComponent(failure.description)
            throw failure
        }
    }

    @Test("what git-credential-libsecret stores, vault finds; what vault stores, it finds")
    func bothWays() throws {
        let libsecret = try libsecret()
        let (vault, host) = try keyringRunner()
        defer { vault.cleanUp() }
        // libsecret → vault, a host with a port and a path.
        let stored = try vault.runProgram(
            libsecret, ["store"],
            stdin: Array(
                "protocol=https\nhost=\(host):8443\npath=a/b.git\nusername=ann\npassword=from libsecret\n".utf8))
        stored.expectSuccess()
        let found = try vault.helper("git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host):8443\n")
        found.expectSuccess()
        #expect(found.stdoutText == "username=ann\npassword=from libsecret\n")

        // vault → libsecret.
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "protocol=https\nhost=\(host)\nusername=ben\npassword=from vault\n"
        ).expectSuccess()
        let read = try vault.runProgram(
            libsecret, ["get"], stdin: Array("protocol=https\nhost=\(host)\nusername=ben\n".utf8))
        read.expectSuccess()
        #expect(read.stdoutText.contains("username=ben\n"))
        #expect(read.stdoutText.contains("password=from vault\n"))
        // One item: vault updates the item libsecret made in place rather than adding another.
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "protocol=https\nhost=\(host):8443\npath=a/b.git\nusername=ann\npassword=changed\n"
        ).expectSuccess()
        let items = try runTool(
            "/usr/bin/secret-tool", ["search", "--all", "server", host, "port", "8443"], environment: vault.environment)
        #expect(items.stdoutText.split(separator: "\n").filter { $0.hasPrefix("[/") }.count == 1, "\(items.stdoutText)")
        let changed = try vault.runProgram(
            libsecret, ["get"], stdin: Array("protocol=https\nhost=\(host):8443\npath=a/b.git\n".utf8))
        #expect(changed.stdoutText.contains("password=changed\n"))

        // Erased by either helper, gone for both.
        try vault.runProgram(
            libsecret, ["erase"], stdin: Array("protocol=https\nhost=\(host)\nusername=ben\n".utf8)
        ).expectSuccess()
        let gone = try vault.helper(
            "git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host)\nusername=ben\n")
        gone.expectSuccess()
        #expect(gone.stdout.isEmpty)
        try vault.helper("git-credential-vault", ["erase"], stdin: "protocol=https\nhost=\(host):8443\n")
            .expectSuccess()
        let none = try vault.runProgram(libsecret, ["get"], stdin: Array("protocol=https\nhost=\(host):8443\n".utf8))
        #expect(!none.stdoutText.contains("password="))
    }

    @Test("newer git's org.git.Password items are read, expiry and refresh token included")
    func newerLayout() throws {
        let (vault, host) = try keyringRunner()
        defer { vault.cleanUp() }
        let future = Int(Date().timeIntervalSince1970) + 3600
        // What git ≥ 2.41's helper stores: the extra fields as lines after the password.
        let secret = "pw\npassword_expiry_utc=\(future)\noauth_refresh_token=rt"
        let made = try runTool(
            "/usr/bin/secret-tool",
            [
                "store", "--label=Git: https://\(host)/", "xdg:schema", "org.git.Password", "user", "dan", "server",
                host,
                "protocol", "https",
            ],
            input: Array(secret.utf8), environment: vault.environment)
        made.expectSuccess()
        let found = try vault.helper("git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host)\n")
        #expect(
            found.stdoutText == "username=dan\npassword=pw\npassword_expiry_utc=\(future)\noauth_refresh_token=rt\n")
        // The same layout written by vault when git sends an expiry; an expired one is not returned.
        try vault.helper(
            "git-credential-vault", ["store"],
            stdin: "protocol=https\nhost=\(host)\nusername=dan\npassword=pw2\npassword_expiry_utc=1000\n"
        ).expectSuccess()
        let expired = try vault.helper("git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host)\n")
        expired.expectSuccess()
        #expect(expired.stdout.isEmpty)
        try vault.helper("git-credential-vault", ["erase"], stdin: "protocol=https\nhost=\(host)\n").expectSuccess()
    }

    @Test("an empty username (an SSO login) is the attribute user=\"\", as git-credential-libsecret stores it")
    func emptyUsername() throws {
        let libsecret = try libsecret()
        let (vault, host) = try keyringRunner()
        defer { vault.cleanUp() }
        try vault.helper(
            "git-credential-vault", ["store"], stdin: "protocol=https\nhost=\(host)\nusername=\npassword=\n"
        ).expectSuccess()
        let item = try runTool(
            "/usr/bin/secret-tool", ["search", "--all", "server", host, "user", ""], environment: vault.environment)
        #expect(item.stdoutText.contains("[/"), "no item with user=\"\": \(item.stdoutText) \(item.stderr)")
        let found = try vault.helper("git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host)\n")
        #expect(found.stdoutText == "username=\npassword=\n")
        try vault.helper("git-credential-vault", ["erase"], stdin: "protocol=https\nhost=\(host)\n").expectSuccess()
        // And what git-credential-libsecret stores so, vault reads back the same way.
        try vault.runProgram(
            libsecret, ["store"], stdin: Array("protocol=https\nhost=\(host)\nusername=\npassword=\n".utf8)
        ).expectSuccess()
        let fromLibsecret = try vault.helper(
            "git-credential-vault", ["get"], stdin: "protocol=https\nhost=\(host)\n")
        #expect(fromLibsecret.stdoutText == "username=\npassword=\n", "\(fromLibsecret.stderr)")
        try vault.helper("git-credential-vault", ["erase"], stdin: "protocol=https\nhost=\(host)\n").expectSuccess()
    }
}
