import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault exec`: the child's environment, argv and exit status, seen from the child.
@Suite("exec, end to end")
struct ExecTests {
    static let tricky: [UInt8] = Array("multi\nline \"quoted\" 'single' $HOME = ; #".utf8) + [0xFF, 0xC3, 0x0D, 0x0A]

    /// Runs `sh -c 'printf %s "$VAR"'` under vault exec and returns its stdout.
    func value(of variable: String, _ vault: VaultRunner, _ options: [String]) throws -> [UInt8] {
        let result = try vault.run(
            ["exec", "--no-mask"] + options + ["--", "/bin/sh", "-c", "printf %s \"$\(variable)\""])
        result.expectSuccess()
        return result.stdout
    }

    @Test("values reach the child byte for byte, under explicit and derived names")
    func environment() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("ci/npm-token", Self.tricky)
        try vault.set("2fa", "123456")
        try vault.set("empty", [])
        #expect(try value(of: "NPM", vault, ["--env", "NPM=ci/npm-token"]) == Self.tricky)
        #expect(try value(of: "CI_NPM_TOKEN", vault, ["--env", "ci/npm-token"]) == Self.tricky)
        #expect(try value(of: "CI_NPM_TOKEN", vault, ["--all"]) == Self.tricky)
        #expect(try value(of: "_2FA", vault, ["--all"]) == Array("123456".utf8))
        let set = try vault.run(["exec", "--all", "--", "/bin/sh", "-c", "test \"${EMPTY+set}\" = set && printf yes"])
        #expect(set.stdoutText == "yes")
        // A binding replaces an inherited variable of the same name.
        let replaced = try vault.run(
            ["exec", "--no-mask", "--env", "HOME=2fa", "--", "/bin/sh", "-c", "printf %s \"$HOME\""])
        #expect(replaced.stdoutText == "123456")
    }

    @Test("the child's argv holds no secret; its environment does; PATH is searched")
    func argv() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let secret = "s3cr3t-\(UUID().uuidString)"
        try vault.set("token", secret)
        let cmdline = try vault.run(["exec", "--env", "TOKEN=token", "--", "cat", "/proc/self/cmdline"])
        cmdline.expectSuccess()
        #expect(cmdline.stdout == Array("cat\0/proc/self/cmdline\0".utf8))
        let environ = try vault.run(["exec", "--no-mask", "--env", "TOKEN=token", "--", "cat", "/proc/self/environ"])
        let entries = environ.stdout.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(entries.contains("TOKEN=\(secret)"))
        #expect(entries.contains("VAULT_SERVICE=\(vault.service)"))
        // The key to the vault is not handed to the child.
        #expect(!entries.contains { $0.hasPrefix("VAULT_IDENTITY=") })
        let passphrase = try vault.run(
            ["exec", "--env", "T=token", "--", "/bin/sh", "-c", "printf %s \"${VAULT_PASSPHRASE-unset}\""],
            env: ["VAULT_PASSPHRASE": "not-used-by-an-identity-vault"])
        #expect(passphrase.stdoutText == "unset")
    }

    @Test("no key variable reaches the child, whatever its value starts with")
    func keyVariablesRemoved() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("token", "t")
        // Set but not used (VAULT_IDENTITY opens the vault): each would give the child the key.
        // A value starting with a combining mark makes `NAME=` and the mark one Character.
        let keys = [
            "VAULT_IDENTITY_FILE": vault.path("key.txt"), "VAULT_PASSPHRASE": "\u{301}combining-first",
            "VAULT_PASSPHRASE_FILE": vault.path("pass.txt"), "VAULT_TO_IDENTITY": "AGE-SECRET-KEY-1TOIDENTITY",
            "VAULT_TO_IDENTITY_FILE": vault.path("to-key.txt"), "VAULT_TO_PASSPHRASE": "\u{308}to-passphrase",
            "VAULT_TO_PASSPHRASE_FILE": vault.path("to-pass.txt"),
        ]
        let environ = try vault.run(["exec", "--env", "T=token", "--", "cat", "/proc/self/environ"], env: keys)
        environ.expectSuccess()
        let names = environ.stdout.split(separator: 0).map {
            String(decoding: $0.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
        }
        for name in keys.keys.sorted() + ["VAULT_IDENTITY"] {
            #expect(!names.contains(name), "\(name) reached the child")
        }
        #expect(names.contains("T") && names.contains("VAULT_SERVICE") && names.contains("VAULT_FILE"))
    }

    @Test("a derived name never replaces an inherited variable nor sets a loader or shell one")
    func derivedNamesProtected() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let marker = vault.path("ran")
        let touch = ["--", "/bin/sh", "-c", "touch '\(marker)'"]
        for name in ["path", "ld_preload", "ld-library-path", "bash_env", "ifs", "glibc_tunables", "pythonstartup"] {
            try vault.set(name, "/tmp/\(name)")
        }
        try vault.set("lang", "xx")
        try vault.set("home", "/elsewhere")
        try vault.run(["exec", "--all"] + touch).expectFailure(2, "bind it explicitly with --env VAR=NAME")
        try vault.run(["exec", "--env", "path"] + touch).expectFailure(2, "'path' would set PATH")
        try vault.run(["exec", "--env", "ld_preload"] + touch).expectFailure(2, "would set LD_PRELOAD")
        try vault.run(["exec", "--env", "ld-library-path"] + touch).expectFailure(2, "would set LD_LIBRARY_PATH")
        for (name, variable) in [
            ("bash_env", "BASH_ENV"), ("ifs", "IFS"), ("glibc_tunables", "GLIBC_TUNABLES"),
            ("pythonstartup", "PYTHONSTARTUP"),
        ] {
            try vault.run(["exec", "--env", name] + touch).expectFailure(2, "would set \(variable), which decides")
        }
        // Inherited, though on no list: LANG and HOME are in the runner's environment.
        try vault.run(["exec", "--env", "lang"] + touch).expectFailure(
            2, "would set LANG, which the command would inherit")
        try vault.run(["exec", "--env", "home"] + touch).expectFailure(
            2, "would set HOME, which the command would inherit")
        #expect(!FileManager.default.fileExists(atPath: marker))
        // Chosen explicitly, any of them is set.
        let explicit = try vault.run(
            [
                "exec", "--no-mask", "--env", "BASH_ENV=bash_env", "--env", "LANG=lang", "--", "/bin/sh", "-c",
                "printf '%s %s' \"$BASH_ENV\" \"$LANG\"",
            ])
        #expect(explicit.stdoutText == "/tmp/bash_env xx", "\(explicit.stderr)")
    }

    @Test(
        "the command keeps the signal dispositions vault started with, across a passphrase prompt",
        arguments: [true, false])
    func signalDispositions(ignored: Bool) throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_SERVICE"] = "e2e-signals"
        try vault.run(["set", "token"], stdin: [1], env: ["VAULT_PASSPHRASE": "typed"]).expectSuccess()
        // sh ignores the four signals the prompt guards (or not), then becomes vault, which asks
        // for the passphrase on the terminal and runs grep in its place.
        let script = (ignored ? "trap '' HUP INT QUIT TERM; " : "") + "exec \"$0\" \"$@\""
        let result = try runOnTerminal(
            typing: "typed", "/bin/sh",
            [
                "-c", script, VaultRunner.binary, "exec", "--env", "T=token", "--", "grep", "SigIgn",
                "/proc/self/status",
            ],
            environment: vault.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Passphrase for"), "vault did not ask: \(result.stderr)")
        let line = result.stderr.split(whereSeparator: \.isNewline).first { $0.hasPrefix("SigIgn:") } ?? ""
        let mask = try #require(UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16))
        for (name, number) in [("SIGHUP", SIGHUP), ("SIGINT", SIGINT), ("SIGQUIT", SIGQUIT), ("SIGTERM", SIGTERM)] {
            #expect(((mask >> UInt64(number - 1)) & 1 == 1) == ignored, "\(name): SigIgn \(line)")
        }
    }

    @Test("the command inherits SIGPIPE as vault found it, though GLib ignores it in vault")
    func sigpipeAfterSecretService() throws {
        var vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let service = uniqueKeyringService("exec-signals")
        vault.environment["VAULT_SERVICE"] = service
        try SessionKeyring.require(&vault)
        defer { SessionKeyring.clear(service, vault) }
        try vault.run(["--backend", "secret-service", "set", "token"], stdin: [1]).expectSuccess()
        let result = try vault.runProgram(
            "/usr/bin/env",
            [
                "--default-signal=PIPE", VaultRunner.binary, "--backend", "secret-service", "exec", "--env", "T=token",
                "--", "grep", "SigIgn", "/proc/self/status",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdoutText.split(separator: "\n").first { $0.hasPrefix("SigIgn:") } ?? ""
        let mask = try #require(UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16))
        #expect((mask >> UInt64(SIGPIPE - 1)) & 1 == 0, "SIGPIPE is ignored in the command: \(line)")
    }

    @Test("exit status, stdin and stdout are the child's")
    func status() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("a", "long enough to mask")
        let failed = try vault.run(["exec", "--all", "--", "/bin/sh", "-c", "echo out; echo err >&2; exit 42"])
        #expect(failed.status == 42)
        #expect(failed.stdoutText == "out\n")
        #expect(failed.stderr == "err\n")
        let cat = try vault.run(["exec", "--all", "--", "cat"], stdin: [1, 2, 3])
        #expect(cat.status == 0 && cat.stdout == [1, 2, 3])
    }

    @Test("a command that cannot be started: 127 if not found, 126 if not executable, one stderr line")
    func cannotStart() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("a", "long enough to mask")
        try vault.run(["exec", "--all", "--", "no-such-command-anywhere"]).expectFailure(127, "command not found")
        try vault.run(["exec", "--all", "--", vault.path("missing")]).expectFailure(127, "No such file")
        let plain = vault.path("plain.txt")
        FileManager.default.createFile(
            atPath: plain, contents: Data("echo hi\n".utf8), attributes: [.posixPermissions: 0o644])
        try vault.run(["exec", "--all", "--", plain]).expectFailure(126, "Permission denied")
        try vault.run(["exec", "--all", "--", vault.directory.path]).expectFailure(126)
    }

    @Test("nothing runs when a secret is missing (1), expired (3), holds a NUL byte or collides (2)")
    func refusals() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let marker = vault.path("ran")
        let touch = ["--", "/bin/sh", "-c", "touch '\(marker)'"]
        try vault.set("a-b", "1")
        try vault.set("a.b", "2")
        try vault.set("old", "x", ["--expires-at", "2001-01-01T00:00:00Z"])
        try vault.set("nul", [0x61, 0, 0x62])
        try vault.set("///", "slashes")
        try vault.run(["exec", "--env", "X=missing"] + touch).expectFailure(1, "no secret named 'missing'")
        try vault.run(["exec", "--env", "X=old"] + touch).expectFailure(
            3, "expired at 2001-01-01T00:00:00Z; set a new value, or use --allow-expired")
        try vault.run(["exec", "--env", "X=nul"] + touch).expectFailure(2, "'nul' contains a NUL byte")
        try vault.run(["exec", "--env", "a-b", "--env", "a.b"] + touch).expectFailure(
            2, "'a-b' and 'a.b' both map to A_B; bind one of them with --env VAR=NAME")
        try vault.run(["exec", "--env", "X=a-b", "--env", "X=a.b"] + touch).expectFailure(2, "both map to X")
        try vault.run(["exec", "--all"] + touch).expectFailure(
            2, "'///' has no letter or digit to make a variable name from; bind it with --env VAR=///")
        try vault.run(["exec", "--env", "1X=a-b"] + touch).expectFailure(2, "not a variable name")
        #expect(!FileManager.default.fileExists(atPath: marker))
        try vault.run(["exec", "--env", "X=old", "--allow-expired"] + touch).expectSuccess()
        #expect(FileManager.default.fileExists(atPath: marker))
    }

    @Test("usage: the secrets must be chosen and the command must follow --")
    func usage() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("a", "1")
        try vault.run(["exec", "--", "true"]).expectFailure(2, "--env VAR=NAME (repeatable) or --all")
        try vault.run(["exec", "--all", "true"]).expectFailure(2, "put the command after '--'")
        try vault.run(["exec", "--all", "--"]).expectFailure(2, "put the command after '--'")
        try vault.run(["exec", "--env"]).expectFailure(2, "--env needs a value")
    }
}
