import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault exec` stays between its command and the output (issue 36): secrets masked where the
/// output is not a terminal, signals passed on, the command's status, a bounded wait.
@Suite("exec: masked output, signals, status")
struct ExecMaskTests {
    static let token = "tok-\(UUID().uuidString)"
    static let pem =
        "-----BEGIN TEST KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\nAASCBKcwggSjAgEAAoIBAQC7\n-----END TEST KEY-----"

    /// A vault holding ``token`` as `token` and ``pem`` as `pem`.
    func vault() throws -> VaultRunner {
        let vault = try VaultRunner.scripted()
        try vault.set("token", Self.token)
        try vault.set("pem", Self.pem)
        return vault
    }

    /// Prints `label=FORM` lines for the forms tools print a value in, on stdout, and the same
    /// lines to the file `$1` (which vault does not see), so the test knows what was hidden.
    static let printer = #"""
        import base64, binascii, json, os, sys, urllib.parse
        token = os.environ["TOKEN"].encode()
        pem = os.environ["PEM"].encode()
        forms = [("raw", token), ("b64", base64.b64encode(token)), ("b64nl", base64.b64encode(token + b"\n")),
                 ("url", base64.urlsafe_b64encode(token)), ("urlnl", base64.urlsafe_b64encode(token + b"\n")),
                 ("pct", urllib.parse.quote(token, safe="").encode()), ("json", json.dumps(token.decode())[1:-1].encode()),
                 ("hex", binascii.hexlify(token)), ("pemraw", pem), ("pemjson", json.dumps(pem.decode())[1:-1].encode()),
                 ("pemb64", base64.b64encode(pem))]
        for prefix in (b"", b"x", b"xy"):
            forms.append(("in%d" % len(prefix), base64.b64encode(b"Authorization: " + prefix + token + b" tail")))
        for number, line in enumerate(pem.split(b"\n")):
            forms.append(("pemline%d" % number, line))
        with open(sys.argv[1], "wb") as truth:
            for label, form in forms:
                line = label.encode() + b"=" + form + b"\n"
                truth.write(line)
                sys.stdout.buffer.write(line)
        """#

    @Test("python printing every encoding, and bash set -x: each form is masked, the rest kept")
    func encodings() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let truthFile = vault.path("truth")
        let result = try vault.run(
            [
                "exec", "--env", "TOKEN=token", "--env", "PEM=pem", "--", "python3", "-c", Self.printer, truthFile,
            ])
        result.expectSuccess()
        let truth = try String(contentsOfFile: truthFile, encoding: .utf8)
        let printed = result.stdoutText
        #expect(!printed.contains(Self.token), "\(printed)")
        // Lines without '=' continue the multi-line value (pemraw).
        for line in truth.split(separator: "\n") where line.contains("=") {
            let label = line.prefix { $0 != "=" }
            let form = String(line.dropFirst(label.count + 1))
            // The PEM's header lines are each a line of the value; the multi-line value prints
            // across lines, each masked on its own.
            if label == "pemraw" { continue }
            let shown = printed.split(separator: "\n").first { $0.hasPrefix(label + "=") }.map(String.init) ?? ""
            #expect(shown.contains("***"), "\(label): \(shown)")
            #expect(!shown.contains(form), "\(label) shown as printed: \(shown)")
            if label.hasPrefix("in") {
                // Inside longer base64 only the characters that depend on the value are hidden.
                #expect(shown.count < line.count - 40, "\(label): \(shown) for \(line)")
            }
        }
        for pemLine in Self.pem.split(separator: "\n") { #expect(!printed.contains(pemLine), "\(printed)") }

        let trace = try vault.run([
            "exec", "--all", "--", "bash", "-c", "set -x; curl_header=\"Bearer $TOKEN\"; : done",
        ])
        trace.expectSuccess()
        #expect(trace.stderr.contains("+ curl_header='Bearer ***'"), "\(trace.stderr)")
        #expect(trace.stderr.contains("+ : done"))
        #expect(!trace.stderr.contains(Self.token))
    }

    @Test("a secret written one byte at a time is masked; output without one passes byte for byte")
    func byteAtATimeAndBinary() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let writer = #"""
            import os, sys
            for byte in ("before " + os.environ["TOKEN"] + " after\n").encode():
                os.write(int(sys.argv[1]), bytes([byte]))
            """#
        for fd in ["1", "2"] {
            let result = try vault.run(["exec", "--env", "TOKEN=token", "--", "python3", "-c", writer, fd])
            result.expectSuccess()
            let text = fd == "1" ? result.stdoutText : result.stderr
            #expect(text == "before *** after\n", "fd \(fd): \(text)")
        }
        // Random bytes (binary, every value) on stdout and stderr come out exactly.
        let data = patternBytes(count: 3 << 20)
        let file = vault.path("data.bin")
        try Data(data).write(to: URL(fileURLWithPath: file))
        let cat = try vault.run(["exec", "--all", "--", "sh", "-c", "cat \"$1\"; cat \"$1\" >&2", "sh", file])
        cat.expectSuccess()
        #expect(cat.stdout == data)
        #expect(cat.stderr == String(decoding: data, as: UTF8.self))
        // Standard input is the command's own, not a copy: the same open file.
        let stdin = try vault.runProgram(
            "/bin/sh", ["-c", "\"$0\" exec --all -- readlink /proc/self/fd/0 <\"$1\"", VaultRunner.binary, file])
        #expect(stdin.stdoutText == file + "\n", "\(stdin.stderr)")
    }

    @Test("secrets of --env-file are masked, its plain values not; a value too short is named once, not masked")
    func envFileAndShortValues() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.set("pin", "Q7")
        let envFile = vault.path("app.env")
        try Data("REF=vault://\(vault.service)/token\nPLAIN=plain-value-kept\n".utf8).write(
            to: URL(fileURLWithPath: envFile))
        let result = try vault.run(
            [
                "exec", "--env-file", envFile, "--env", "PIN=pin", "--", "sh", "-c",
                "echo \"$REF $PLAIN pin=$PIN\"; echo \"$REF\" >&2",
            ])
        result.expectSuccess()
        #expect(result.stdoutText == "*** plain-value-kept pin=Q7\n")
        #expect(result.stderr.components(separatedBy: "PIN is shorter than 4 bytes").count == 2, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("***\n"))
        // --no-mask: as it is.
        let plain = try vault.run(["exec", "--no-mask", "--env-file", envFile, "--", "sh", "-c", "echo \"$REF\""])
        #expect(plain.stdoutText == Self.token + "\n")
        try vault.run(["exec", "--mask", "--no-mask", "--all", "--", "true"]).expectFailure(2, "contradict")
    }

    @Test("GitHub Actions is told every form before the command starts, with its data escapes")
    func actions() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        try vault.set("percent", "100%\rsure")
        let result = try vault.run(
            ["exec", "--all", "--", "sh", "-c", "echo started"], env: ["GITHUB_ACTIONS": "true"])
        result.expectSuccess()
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.last == "started")
        let masks = lines.dropLast()
        #expect(masks.allSatisfy { $0.hasPrefix("::add-mask::") }, "\(lines)")
        let values = Set(masks.map { String($0.dropFirst("::add-mask::".count)) })
        #expect(values.contains(Self.token))
        #expect(values.contains(Data(Self.token.utf8).base64EncodedString()))
        #expect(values.contains(Self.pem.replacingOccurrences(of: "\n", with: "%0A")))
        #expect(values.contains("MIIEvQIBADANBgkqhkiG9w0BAQEF"))
        #expect(values.contains("100%25%0Dsure"))
        let off = try vault.run(["exec", "--no-mask", "--all", "--", "true"], env: ["GITHUB_ACTIONS": "true"])
        #expect(off.stdout.isEmpty)
    }

    @Test("the command's status; killed, vault dies of the same signal; a background process does not hold vault")
    func statusAndBackground() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let failed = try vault.run(["exec", "--all", "--", "sh", "-c", "exit 42"])
        #expect(failed.status == 42 && failed.stderr.isEmpty, "\(failed.stderr)")
        let killed = try vault.runProgram(
            "/bin/sh", ["-c", "\"$0\" exec --all -- sh -c 'kill -TERM $$'; echo status=$?", VaultRunner.binary])
        #expect(killed.stdoutText == "status=143\n", "\(killed.stderr)")
        // A background sleep keeps stdout and stderr open; vault returns while it still runs.
        let pidFile = vault.path("sleep.pid")
        let background = try vault.run(
            ["exec", "--all", "--", "sh", "-c", "sleep 300 & echo $! >\"$1\"; echo done", "sh", pidFile])
        #expect(background.status == 0 && background.stdoutText == "done\n", "\(background.stderr)")
        let pid = try #require(
            Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == 0, "the background sleep had ended: vault waited for it")
        kill(pid, SIGKILL)
    }

    @Test("signals sent to vault reach the command: a trapped SIGUSR1 and SIGINT")
    func forwardedSignals() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let output = vault.path("out")
        let script = "trap 'echo usr1' USR1; trap 'echo int; exit 7' INT; echo ready; while :; do sleep 0.05; done"
        let pid = try spawnChild(
            VaultRunner.binary, ["exec", "--all", "--", "bash", "-c", script], environment: vault.environment,
            input: .null, output: output)
        defer { stopChild(pid) }
        func waitFor(_ text: String) -> Bool {
            for _ in 0..<6000 {
                if let read = try? String(contentsOfFile: output, encoding: .utf8), read.contains(text) { return true }
                usleep(10_000)
            }
            return false
        }
        try #require(waitFor("ready\n"))
        kill(pid, SIGUSR1)
        try #require(waitFor("usr1\n"))
        kill(pid, SIGINT)
        #expect(waitChild(pid, timeout: 60) == 7)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "ready\nusr1\nint\n")
    }

    @Test("on a terminal the command keeps it, unless --mask")
    func terminal() throws {
        let vault = try vault()
        defer { vault.cleanUp() }
        let driver = VaultRunner.packageRoot.appendingPathComponent("Tests/on-terminal.py").path
        let script = "test -t 2 && echo err-is-terminal >&2; echo \"stdout $TOKEN\"; echo \"stderr $TOKEN\" >&2"
        let kept = try runTool(
            "/usr/bin/python3", [driver, VaultRunner.binary, "exec", "--env", "TOKEN=token", "--", "sh", "-c", script],
            environment: vault.environment)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("err-is-terminal"))
        #expect(kept.stderr.contains("stderr \(Self.token)"))
        #expect(kept.stdoutText == "stdout ***\n")
        let masked = try runTool(
            "/usr/bin/python3",
            [driver, VaultRunner.binary, "exec", "--mask", "--env", "TOKEN=token", "--", "sh", "-c", script],
            environment: vault.environment)
        #expect(masked.status == 0, "\(masked.stderr)")
        #expect(!masked.stderr.contains("err-is-terminal"))
        #expect(masked.stderr.contains("stderr ***"))
        #expect(!masked.stderr.contains(Self.token))
    }
}
