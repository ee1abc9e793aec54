import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// The command-line contract: usage errors, exit codes, help.
@Suite("Command line")
struct CommandLineTests {
    func vault() throws -> VaultRunner {
        var vault = try VaultRunner()
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        return vault
    }

    /// The parser's own errors are checked in-process (VaultCommandLineTests); here, one of them
    /// and the errors found while running a command, as the binary reports them.
    @Test("usage errors exit 2 with one line on stderr")
    func usageErrors() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let cases: [([String], String)] = [
            (["frobnicate"], "unknown command"),
            (["get"], "takes 1 operand"),
            (["get", "a", "b"], "takes 1 operand"),
            (["set", "name", "the-value"], "never taken from the command line"),
            (["get", ""], "the name is empty"),
            (["get", String(repeating: "a", count: 256)], "256 bytes long"),
            (["get", "tab\there"], "control character"),
            (["get", "new\nline"], "control character"),
            (["--backend", "cloud", "get", "a"], "use auto, file, secret-service or openbao"),
            (["ls", "extra"], "takes 0 operand"),
            (["set", "a", "--expires-in", "soon"], "--expires-in is 'soon'; give a duration"),
            (["set", "a", "--expires-at", "tomorrow"], "not an RFC 3339 time"),
            (["--service", "", "get", "a"], "the service is empty"),
            (["help", "nope"], "unknown command"),
        ]
        for (arguments, fragment) in cases {
            try vault.run(arguments).expectFailure(2, fragment)
        }
        try vault.run(["get", "a"], env: ["VAULT_BACKEND": "nope"]).expectFailure(2, "VAULT_BACKEND")
        try vault.run(["--backend", "secret-service", "get", "a"], env: ["VAULT_TIMEOUT": "-1"])
            .expectFailure(2, "VAULT_TIMEOUT")
        try vault.run(["set", "a"], env: ["VAULT_SCRYPT_WORK_FACTOR": "99"]).expectFailure(
            2, "VAULT_SCRYPT_WORK_FACTOR")
    }

    @Test("a name after -- may start with a dash")
    func dashName() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.run(["set", "--", "-odd"], stdin: [1]).expectSuccess()
        #expect(try vault.run(["get", "--", "-odd"]).stdout == [1])
    }

    @Test("a value over 1 MiB is refused with exit 2 and nothing is written")
    func valueLimit() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.run(["set", "max"], stdin: [UInt8](repeating: 7, count: 1 << 20)).expectSuccess()
        try vault.run(["set", "big"], stdin: [UInt8](repeating: 7, count: (1 << 20) + 1)).expectFailure(2, "1 MiB")
        try vault.run(["get", "big"]).expectFailure(1)
    }

    @Test("expired secrets exit 3 unless --allow-expired")
    func expired() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.run(["set", "old", "--expires-at", "2001-01-01T00:00:00Z"], stdin: [1]).expectSuccess()
        try vault.run(["get", "old"]).expectFailure(3, "expired at 2001-01-01T00:00:00Z")
        #expect(try vault.run(["get", "old", "--allow-expired"]).stdout == [1])
        try vault.run(["set", "new", "--expires-in", "30d"], stdin: [2]).expectSuccess()
        #expect(try vault.run(["get", "new"]).stdout == [2])
    }

    @Test("exit 5 when the Secret Service is asked for and there is no session bus")
    func unavailable() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.run(["--backend", "secret-service", "get", "a"], unset: ["DBUS_SESSION_BUS_ADDRESS"])
            .expectFailure(5)
        try vault.run(
            ["get", "a"],
            env: ["VAULT_BACKEND": "secret-service", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        )
        .expectFailure(5)
    }

    @Test("exit 9 for other errors, such as a vault path under a regular file")
    func otherErrors() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        FileManager.default.createFile(atPath: vault.path("plain"), contents: Data([1]))
        try vault.run(["set", "a"], stdin: [1], env: ["VAULT_FILE": vault.path("plain/vault.age")]).expectFailure(9)
    }

    @Test("help and version")
    func help() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let overview = try vault.run(["help"])
        overview.expectSuccess()
        for command in ["set", "get", "rm", "ls", "init", "doctor", "help"] {
            #expect(overview.stdoutText.contains("\n  \(command) "), "help lists \(command)")
            let help = try vault.run([command, "--help"])
            help.expectSuccess()
            #expect(help.stdoutText.hasPrefix("usage: vault \(command)"))
            #expect(try vault.run(["help", command]).stdout == help.stdout)
        }
        let version = try vault.run(["--version"])
        version.expectSuccess()
        #expect(version.stdoutText.hasPrefix("vault 1."))
        try vault.run([]).expectFailure(2, "vault help")
        #expect(try vault.run(["--help"]).stdoutText.contains("usage: vault"))
    }
}
