import Foundation
import Testing
import VaultAge
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Bad arguments, names, values, environment variables and paths, each with exactly one line on
/// stderr, nothing on stdout, and the documented exit status (README, "Exit codes"); nothing hangs.
@Suite("Bad input")
struct BadInputTests {
    /// One bad input: what to run and what must come of it.
    struct Case: CustomStringConvertible {
        var label: String
        var arguments: [String]
        var env: [String: String] = [:]
        var unset: [String] = []
        var stdin: [UInt8] = []
        /// A shell command run instead of `arguments` (`$0` is vault), for bytes that are not UTF-8.
        var shell: String?
        var status: Int32
        var fragment: String?

        var description: String { label }
    }

    /// Paths of every kind, made once per test in the runner's directory.
    struct Paths {
        let directory, fifo, underFile, loop, emptyFile, garbageKey, newlineOnly: String

        init(_ runner: VaultRunner) throws {
            directory = runner.path("a-directory")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fifo = runner.path("a-fifo")
            mkfifo(fifo, 0o600)
            let plain = runner.path("plain")
            FileManager.default.createFile(atPath: plain, contents: Data([1]))
            underFile = plain + "/vault.age"
            loop = runner.path("loop")
            try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
            emptyFile = runner.path("empty")
            garbageKey = runner.path("garbage-key")
            newlineOnly = runner.path("newline-only")
            for (path, text) in [(emptyFile, ""), (garbageKey, "not a key\n"), (newlineOnly, "\n")] {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                chmod(path, 0o600)
            }
        }
    }

    static func cases(_ p: Paths, _ runner: VaultRunner) -> [Case] {
        let noKey = ["VAULT_IDENTITY"]
        let auto = ["VAULT_FILE"]
        let bus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        var cases: [Case] = [
            Case(label: "--file=", arguments: ["--file=", "get", "a"], status: 2, fragment: "--file needs a path"),
            Case(
                label: "--file without value", arguments: ["get", "a", "--file"], status: 2, fragment: "needs a value"),
            Case(
                label: "long service", arguments: ["--service", String(repeating: "s", count: 256), "get", "a"],
                status: 2),
            Case(label: "DEL in a name", arguments: ["get", "a\u{7F}"], status: 2, fragment: "control character"),
            Case(
                label: "C1 control in a name", arguments: ["get", "a\u{85}"], status: 2, fragment: "control character"),
            Case(label: "zero duration", arguments: ["set", "a", "--expires-in", "0s"], stdin: [1], status: 2),
            Case(
                label: "duration with an unknown unit", arguments: ["set", "a", "--expires-in", "12y"], stdin: [1],
                status: 2, fragment: "--expires-in is '12y'; give a duration up to 36600d"),
            Case(label: "huge duration", arguments: ["set", "a", "--expires-in", "99999999999999999999d"], status: 2),
            Case(label: "February 30", arguments: ["set", "a", "--expires-at", "2026-02-30T00:00:00Z"], status: 2),
            Case(
                label: "both expiries",
                arguments: ["set", "a", "--expires-in", "1h", "--expires-at", "2030-01-01T00:00:00Z"],
                status: 2, fragment: "not both"),
            Case(label: "flag with a value", arguments: ["get", "a", "--allow-expired=yes"], status: 2),
            Case(label: "rm without a name", arguments: ["rm"], status: 2),
            Case(label: "rm with two names", arguments: ["rm", "a", "b"], status: 2),
            Case(label: "ls with an operand", arguments: ["ls", "--all", "x"], status: 2),
            Case(label: "help with two operands", arguments: ["help", "get", "extra"], status: 2),
            Case(label: "empty --backend", arguments: ["--backend=", "get", "a"], status: 2),
            Case(
                label: "missing recipients file", arguments: ["init", "--recipients-file", p.directory + "/none"],
                env: ["VAULT_FILE": runner.path("new.age")], status: 2, fragment: "does not exist"),
            Case(label: "VAULT_BACKEND=cloud", arguments: ["get", "a"], env: ["VAULT_BACKEND": "cloud"], status: 2),
            Case(label: "VAULT_BACKEND=FILE", arguments: ["get", "a"], env: ["VAULT_BACKEND": "FILE"], status: 2),
            Case(
                label: "VAULT_SERVICE with a tab", arguments: ["get", "a"], env: ["VAULT_SERVICE": "a\tb"], status: 2),
            Case(
                label: "VAULT_IDENTITY garbage", arguments: ["get", "a"], env: ["VAULT_IDENTITY": "garbage"], status: 4),
            Case(
                label: "VAULT_IDENTITY a public key", arguments: ["get", "a"],
                env: ["VAULT_IDENTITY": X25519Identity.generate().recipient.encoded], status: 4),
            Case(
                label: "HOME unset, no VAULT_FILE", arguments: ["get", "a"],
                unset: ["HOME", "VAULT_FILE", "XDG_DATA_HOME"],
                status: 2, fragment: "HOME is not set; give the vault file with --file or VAULT_FILE"),
        ]
        for timeout in ["abc", "0", "-1", "nan", "inf", "99999", ""] where !timeout.isEmpty {
            cases.append(
                Case(
                    label: "VAULT_TIMEOUT=\(timeout) under auto", arguments: ["get", "a"],
                    env: bus.merging(["VAULT_TIMEOUT": timeout]) { $1 }, unset: auto, status: 2,
                    fragment: "VAULT_TIMEOUT"))
        }
        for factor in ["abc", "9", "23", " 18", "18.0", "-18"] {
            cases.append(
                Case(
                    label: "VAULT_SCRYPT_WORK_FACTOR='\(factor)'", arguments: ["set", "a"],
                    env: ["VAULT_SCRYPT_WORK_FACTOR": factor], stdin: [1], status: 2,
                    fragment: "VAULT_SCRYPT_WORK_FACTOR"))
        }
        let keyFiles: [(String, String, String?)] = [
            ("missing", p.directory + "/none", "No such file"), ("a directory", p.directory, "is a directory"),
            ("garbage", p.garbageKey, nil), ("empty", p.emptyFile, "no secret keys"),
            ("under a file", p.underFile, "Not a directory"),
        ]
        for (label, path, fragment) in keyFiles {
            cases.append(
                Case(
                    label: "VAULT_IDENTITY_FILE \(label)", arguments: ["get", "a"], env: ["VAULT_IDENTITY_FILE": path],
                    unset: noKey, status: 4, fragment: fragment))
        }
        let passFiles: [(String, String, String?)] = [
            ("missing", p.directory + "/none", "No such file"), ("empty", p.emptyFile, "is empty"),
            ("a lone newline", p.newlineOnly, "is empty"), ("a directory", p.directory, "is a directory"),
        ]
        for (label, path, fragment) in passFiles {
            cases.append(
                Case(
                    label: "VAULT_PASSPHRASE_FILE \(label)", arguments: ["get", "a"],
                    env: ["VAULT_PASSPHRASE_FILE": path],
                    unset: noKey, status: 4, fragment: fragment))
        }
        let vaultFiles: [(String, String, Int32, String?)] = [
            (
                "a directory", p.directory, 2,
                "is a directory, not a vault file; name a regular file with --file or VAULT_FILE"
            ), ("a FIFO", p.fifo, 2, "is a FIFO"),
            ("/dev/null", "/dev/null", 2, "is a device"), ("under a file", p.underFile, 9, "Not a directory"),
            ("a symlink loop", p.loop, 9, "symbolic links"),
        ]
        for (label, path, status, fragment) in vaultFiles {
            for (arguments, stdin) in [
                (["get", "a"], [UInt8]()), (["ls"], []), (["set", "a"], [1]), (["rm", "a"], []),
            ] {
                cases.append(
                    Case(
                        label: "VAULT_FILE \(label): \(arguments[0])", arguments: arguments, env: ["VAULT_FILE": path],
                        stdin: stdin, status: status, fragment: fragment))
            }
        }
        let shell: [(String, String, Int32, String?)] = [
            ("a name that is not UTF-8", "exec \"$0\" get \"$(printf 'caf\\351')\"", 2, "not valid UTF-8"),
            (
                "a passphrase that is not UTF-8",
                "VAULT_IDENTITY= VAULT_PASSPHRASE=\"$(printf 'p\\377')\" exec \"$0\" get a", 2, nil
            ),
            ("a vault path that is not UTF-8", "VAULT_FILE=\"$(printf '/tmp/\\377')\" exec \"$0\" ls", 2, "VAULT_FILE"),
            ("stdin a directory", "exec \"$0\" set a < /", 9, "cannot read standard input: Is a directory"),
            ("stdout a full disk", "exec \"$0\" get a > /dev/full", 9, "cannot write output: No space left on device"),
            ("stdin closed", "exec \"$0\" set a <&-", 9, "standard input"),
        ]
        for (label, script, status, fragment) in shell {
            cases.append(Case(label: label, arguments: [], shell: script, status: status, fragment: fragment))
        }
        return cases
    }

    @Test("every bad input gets one line on stderr and its documented exit status")
    func table() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "a"], stdin: [1]).expectSuccess()
        let before = vault.runner.fileBytes()
        let paths = try Paths(vault.runner)
        let cases = Self.cases(paths, vault.runner)
        for item in cases {
            var env = vault.runner.environment.merging(item.env) { $1 }
            for name in item.unset { env[name] = nil }
            let child: ChildProcess
            if let script = item.shell {
                child = try ChildProcess(
                    "/bin/sh", ["-c", script, VaultRunner.binary], environment: env, input: item.stdin)
            } else {
                child = try ChildProcess(VaultRunner.binary, item.arguments, environment: env, input: item.stdin)
            }
            guard let result = try child.wait(seconds: 20) else {
                Issue.record("\(item): vault hung")
                continue
            }
            #expect(result.status == item.status, "\(item): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(item): stdout \(result.stdoutText)")
            #expect(
                result.stderr.hasPrefix("vault: ") && result.stderr.filter { $0 == "\n" }.count == 1,
                "\(item): \(result.stderr)")
            if let fragment = item.fragment { #expect(result.stderr.contains(fragment), "\(item): \(result.stderr)") }
        }
        #expect(vault.runner.fileBytes() == before, "a bad input changed the vault")
        for special in [paths.directory, paths.fifo] {
            #expect(
                !FileManager.default.fileExists(atPath: special + ".lock"), "a lock file was made next to \(special)")
        }
        print("bad input: \(cases.count) cases")
    }

    @Test("paths vault may not read: the vault file is exit 9, a key file exit 4 (run as another user)")
    func unreadablePaths() throws {
        let user = try Unprivileged.make()
        defer { user.cleanUp() }
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "a"], stdin: [1]).expectSuccess()
        let locked = vault.runner.vaultFile
        let readable = vault.runner.path("readable.age")
        try FileManager.default.copyItem(atPath: locked, toPath: readable)
        chmod(readable, 0o644)
        chmod(locked, geteuid() == 0 ? 0o600 : 0o000)
        let keyFile = vault.runner.path("key.txt")
        try (vault.identity.encoded + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, geteuid() == 0 ? 0o600 : 0o000)
        let runs: [([String: String], Int32, String)] = [
            (["VAULT_FILE": locked], 9, "Permission denied"),
            (["VAULT_FILE": readable, "VAULT_IDENTITY": "", "VAULT_IDENTITY_FILE": keyFile], 4, "Permission denied"),
        ]
        for (env, status, fragment) in runs {
            let result = try runTool(
                user.program, user.prefix + ["get", "a"], environment: vault.runner.environment.merging(env) { $1 })
            result.expectFailure(status, fragment)
        }
    }
}
