import Foundation
import Testing
import VaultAge
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Secrets stay out of error messages, argv, other processes, core files and readable files.
@Suite("Secret hygiene")
struct SecretHygieneTests {
    /// Failing commands whose secrets are distinctive strings: none of them may show up in any output.
    @Test("no failing command prints a value, a passphrase or a key, in any form")
    func noSecretInOutput() throws {
        var vault = try IdentityVault()
        defer { vault.cleanUp() }
        let identity = vault.identity.encoded
        let value = "VALUE-9f2c-do-not-print"
        try vault.runner.run(["set", "token"], stdin: Array(value.utf8)).expectSuccess()
        try vault.runner.run(["set", "old", "--expires-at", "2001-01-01T00:00:00Z"], stdin: Array(value.utf8))
            .expectSuccess()
        let looseKey = vault.runner.path("loose-key.txt")
        try "AGE-SECRET-KEY-1LOOSEFILEKEY7QQQQ\n".write(toFile: looseKey, atomically: true, encoding: .utf8)
        chmod(looseKey, 0o644)
        let garbageKey = vault.runner.path("garbage-key.txt")
        try "AGE-SECRET-KEY-1GARBAGEFILEKEY8ZZZZ\n".write(toFile: garbageKey, atomically: true, encoding: .utf8)
        chmod(garbageKey, 0o600)
        let loosePass = vault.runner.path("loose-pass.txt")
        try "PASSFILE-41d7-do-not-print\n".write(toFile: loosePass, atomically: true, encoding: .utf8)
        chmod(loosePass, 0o640)
        let passphraseVault = vault.runner.path("pass.age")
        try vault.runner.run(
            ["set", "p"], stdin: Array(value.utf8),
            env: ["VAULT_FILE": passphraseVault, "VAULT_PASSPHRASE": "right", "VAULT_IDENTITY": ""]
        )
        .expectSuccess()

        let secrets = [
            value, Data(value.utf8).base64EncodedString(), identity, "LOOSEFILEKEY7", "GARBAGEFILEKEY8",
            "PASSFILE-41d7",
            "PASS-6a1b-do-not-print", "ENVKEY3GARBAGE", "ARGV-77aa-do-not-print", "BIGVALUE-0c3e",
        ]
        let noIdentity = ["VAULT_IDENTITY": ""]
        let wrongPassphrase = noIdentity.merging([
            "VAULT_FILE": passphraseVault, "VAULT_PASSPHRASE": "PASS-6a1b-do-not-print",
        ]) {
            $1
        }
        let cases: [(String, [String], [String: String], [UInt8], Int32)] = [
            ("wrong passphrase", ["get", "p"], wrongPassphrase, [], 4),
            ("set with a wrong passphrase", ["set", "p"], wrongPassphrase, Array(value.utf8), 4),
            ("garbage identity", ["get", "token"], ["VAULT_IDENTITY": "AGE-SECRET-KEY-1ENVKEY3GARBAGE"], [], 4),
            ("identity of another file", ["get", "p"], ["VAULT_FILE": passphraseVault], [], 4),
            (
                "identity file readable by others", ["get", "token"],
                noIdentity.merging(["VAULT_IDENTITY_FILE": looseKey]) { $1 }, [], 4
            ),
            (
                "garbage identity file", ["get", "token"],
                noIdentity.merging(["VAULT_IDENTITY_FILE": garbageKey]) { $1 }, [], 4
            ),
            (
                "passphrase file readable by group", ["get", "p"],
                noIdentity.merging(["VAULT_FILE": passphraseVault, "VAULT_PASSPHRASE_FILE": loosePass]) { $1 }, [], 4
            ),
            ("value on the command line", ["set", "x", "ARGV-77aa-do-not-print"], [:], [], 2),
            (
                "secret key as a recipient", ["init", "--recipient", identity],
                ["VAULT_FILE": vault.runner.path("new.age")], [], 2
            ),
            (
                "value over 1 MiB", ["set", "big"], [:],
                Array(("BIGVALUE-0c3e" + String(repeating: "x", count: 1 << 20)).utf8), 2
            ),
            ("expired secret", ["get", "old"], [:], [], 3),
        ]
        for (label, arguments, env, stdin, status) in cases {
            let result = try vault.runner.run(arguments, stdin: stdin, env: env, timeout: 30)
            result.expectFailure(status)
            let output = result.stderr + result.stdoutText
            for secret in secrets where output.contains(secret) {
                Issue.record("\(label): the output contains a secret: \(result.stderr)")
            }
        }

        // A damaged document: its error names the line and the problem, never what the line holds.
        let document =
            "{\"vault\":1}\n{\"service\":\"vault\",\"account\":\"a\",\"value\":\"\(Data(value.utf8).base64EncodedString())\",\"created\":\"x\",\"updated\":\"x\"}\n"
        try Data(try Age.encrypt(Array(document.utf8), to: [vault.identity.recipient]))
            .write(to: URL(fileURLWithPath: vault.runner.vaultFile))
        for arguments in [["get", "a"], ["ls"], ["rm", "a"]] {
            let result = try vault.runner.run(arguments, timeout: 30)
            result.expectFailure(6)
            #expect(!secrets.contains { result.stderr.contains($0) }, "\(arguments): \(result.stderr)")
        }
    }

    /// Inputs that may be secrets and were once quoted in errors: the error names the line, the
    /// entry or the argument's position instead.
    @Test("an error names a misplaced input by its position, never by its content")
    func noInputQuoted() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let key = X25519Identity.generate().encoded
        let token = "TOKEN-5e2b-do-not-print"
        let pem = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
        let new = ["VAULT_FILE": vault.runner.path("new.age")]
        let cases: [(String, [String], [String: String], String, String)] = [
            ("a secret key behind a space", ["init", "--recipient", " " + key], new, "", "age secret key"),
            ("a secret key in quotes", ["init", "--recipient", "\"\(key)\""], new, "", "age secret key"),
            (
                "the second recipient",
                ["init", "--recipient", vault.identity.recipient.encoded, "--recipient", token],
                new, "", "--recipient number 2"
            ),
            ("a bare token in dotenv", ["import", "--format", "dotenv"], [:], "A=1\n\(token)\n", "dotenv line 2"),
            (
                "a PEM key in dotenv", ["import", "--format", "dotenv"], [:],
                "A=1\n-----BEGIN PRIVATE KEY-----\n\(pem)\n", "dotenv line 2"
            ),
            (
                "an unknown JSON key", ["import", "--format", "json"], [:],
                "[{\"name\": \"a\", \"value\": \"1\", \"\(token)\": \"x\"}]", "JSON entry 1"
            ),
            ("a token as a command", [token], [:], "", "(argument 1)"),
            ("a token as an option", ["get", "--\(token)", "a"], [:], "", "(argument 2)"),
            ("a token as a short option", ["ls", "-\(token)"], [:], "", "(argument 2)"),
            ("a token as help's command", ["help", token], [:], "", "unknown command"),
            (
                "a token in --env", ["exec", "--env", "X=a", "--env", "\(token)=a", "--", "true"], [:], "",
                "--env number 2"
            ),
        ]
        for (label, arguments, env, stdin, fragment) in cases {
            let result = try vault.runner.run(arguments, stdin: Array(stdin.utf8), env: env)
            result.expectFailure(2, fragment)
            for secret in [
                key, String(key.dropFirst("AGE-SECRET-KEY-1".count)), token, "BEGIN", String(pem.prefix(12)),
            ]
            where result.stderr.contains(secret) {
                Issue.record("\(label): the error quotes its input: \(result.stderr)")
            }
        }
        // A passphrase that is not UTF-8 and starts with a combining mark: its name is cut at the
        // '=' byte, so the message names the variable and nothing after it.
        let script = "VAULT_PASSPHRASE=\"$(printf '\\314\\201PASS-2c4e\\377')\" exec \"$0\" \"$@\""
        let result = try runTool(
            "/bin/sh", ["-c", script, VaultRunner.binary, "ls"], environment: vault.runner.environment)
        result.expectFailure(2, "VAULT_PASSPHRASE is not valid UTF-8")
        #expect(!result.stderr.contains("PASS-2c4e"), "\(result.stderr)")
    }

    @Test("vault starts no other process and passes its environment to none (strace)")
    func noChildProcesses() throws {
        try CrashSafetyTests.requireStrace()
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        for (arguments, stdin) in [
            (["set", "a"], [UInt8](Array("v".utf8))), (["get", "a"], []), (["ls"], []), (["rm", "a"], []),
        ] {
            let trace = vault.runner.path("process-trace.txt")
            let result = try runTool(
                CrashSafetyTests.strace,
                ["-f", "-qq", "-e", "trace=process", "-o", trace, VaultRunner.binary] + arguments,
                input: stdin, environment: vault.runner.environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            #expect(lines.filter { $0.contains("execve(") }.count == 1, "\(arguments) executed another program")
            let forks = lines.filter {
                ($0.contains("fork(") || $0.contains("clone(") || $0.contains("clone3("))
                    && !$0.contains("CLONE_THREAD")
            }
            #expect(forks.isEmpty, "\(arguments) started a process: \(forks)")
        }
    }

    @Test("core dumps are off and the process is not dumpable, seen in /proc while vault waits for input")
    func notDumpable() throws {
        let user = try Unprivileged.make()
        defer { user.cleanUp() }
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        // Core files allowed before vault starts, so that only vault itself can turn them off.
        let script = "ulimit -c unlimited 2>/dev/null || ulimit -c 4096 2>/dev/null; exec \"$0\" \"$@\""
        let stdin = Pipe()
        let child = try ChildProcess(
            "/bin/sh", ["-c", script, user.program] + user.prefix + ["set", "waiting"],
            environment: vault.runner.environment,
            stdinPipe: stdin)
        defer { child.kill() }
        // vault blocks reading the value from the pipe, after its start-up hygiene ran.
        var seen = (comm: "", owner: UInt32.max, core: "")
        let deadline = Date().addingTimeInterval(20)
        repeat {
            seen = Self.procState(child.pid)
            if seen.comm == "vault", seen.owner == 0, seen.core.hasPrefix("0 ") { break }
            usleep(5000)
        } while Date() < deadline
        #expect(seen.comm == "vault", "the process under test is \(seen.comm)")
        #expect(user.uid != 0 && seen.owner == 0, "/proc/PID/status is owned by \(seen.owner): vault is dumpable")
        // The soft limit is what stops core files; vault keeps the hard limit so that `vault exec`
        // can give the command it runs the limit vault was started with.
        #expect(seen.core.hasPrefix("0 "), "Max core file size is \(seen.core)")
        #expect(seen.core != "0 0", "the hard limit was lowered too: \(seen.core)")
        #expect(child.isRunning, "vault did not wait for its input")
    }

    /// The command name, the owner of /proc/PID/status (root when the process is not dumpable), and the
    /// soft and hard core size limits.
    static func procState(_ pid: Int32) -> (comm: String, owner: UInt32, core: String) {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let comm = stat.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first.map(String.init) ?? ""
        let owner =
            (try? FileManager.default.attributesOfItem(atPath: "/proc/\(pid)/status")[.ownerAccountID] as? NSNumber)
            .flatMap { $0.map(\.uint32Value) } ?? UInt32.max
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        let core =
            limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
            .map { $0.dropFirst("Max core file size".count).split(separator: " ").prefix(2).joined(separator: " ") }
            ?? ""
        return (comm, owner, core)
    }

    @Test("files and directories are created 0600 and 0700 whatever the umask", arguments: ["000", "077", "022"])
    func umask(mask: String) throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let directory = vault.runner.path("under-umask-\(mask)/nested")
        let file = directory + "/vault.age"
        let script = "umask \(mask); exec \"$0\" \"$@\""
        for arguments in [["set", "a"], ["set", "b"], ["rm", "a"]] {
            let result = try runTool(
                "/bin/sh", ["-c", script, VaultRunner.binary] + arguments, input: [1],
                environment: vault.runner.environment.merging(["VAULT_FILE": file]) { $1 })
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(permissions(file) == 0o600, "vault file \(permissions(file).map(modeString) ?? "missing")")
        #expect(
            permissions(file + ".lock") == 0o600,
            "lock file \(permissions(file + ".lock").map(modeString) ?? "missing")")
        #expect(permissions(directory) == 0o700 && permissions(vault.runner.path("under-umask-\(mask)")) == 0o700)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["vault.age", "vault.age.lock"])
        let initialized = directory + "/init.age"
        let result = try runTool(
            "/bin/sh", ["-c", script, VaultRunner.binary, "init"],
            environment: vault.runner.environment.merging(["VAULT_FILE": initialized]) { $1 })
        #expect(result.status == 0 && permissions(initialized) == 0o600, "init: \(result.stderr)")
    }

    @Test(
        "identity and passphrase files readable by group or others are refused, as ssh does",
        arguments: [0o640, 0o604, 0o660, 0o644])
    func looseKeyFiles(mode: Int) throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "a"], stdin: [1]).expectSuccess()
        let keyFile = vault.runner.path("key.txt")
        try (vault.identity.encoded + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, mode_t(mode))
        try vault.runner.run(["get", "a"], env: ["VAULT_IDENTITY": "", "VAULT_IDENTITY_FILE": keyFile])
            .expectFailure(4, "chmod 600")
        let passFile = vault.runner.path("pass.txt")
        try "pw\n".write(toFile: passFile, atomically: true, encoding: .utf8)
        chmod(passFile, mode_t(mode))
        try vault.runner.run(
            ["set", "a"], stdin: [1],
            env: ["VAULT_IDENTITY": "", "VAULT_FILE": vault.runner.path("p.age"), "VAULT_PASSPHRASE_FILE": passFile]
        )
        .expectFailure(4, "chmod 600")
        chmod(keyFile, 0o600)
        #expect(
            try vault.runner.run(["get", "a"], env: ["VAULT_IDENTITY": "", "VAULT_IDENTITY_FILE": keyFile]).stdout == [
                1
            ])
    }
}
