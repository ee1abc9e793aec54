import Foundation
import Synchronization
import Testing
import VaultTestSupport

/// Living tokens minted by `--refresh-command`, through the built binary (docs/tokens.md).
@Suite("Refresh command, end to end")
struct RefreshCommandTests {
    static let timeout = 60.0

    /// A shell command that counts its runs in `counter` and prints `token-N`, after `delay`
    /// seconds (so that concurrent readers overlap it).
    static func countingCommand(_ counter: String, delay: String = "0", json: String? = nil) -> String {
        let print = json ?? "printf 'token-%s\\n' \"$n\""
        return "sleep \(delay); printf x >>'\(counter)'; n=$(wc -c <'\(counter)'); \(print)"
    }

    static func runs(_ counter: String) -> Int {
        (try? Data(contentsOf: URL(fileURLWithPath: counter)).count) ?? 0
    }

    /// Sixteen `vault get`s of one expired token at once: one run of the command, one token for all.
    static func singleFlight(_ vault: VaultRunner) throws {
        let counter = vault.path("runs-\(UUID().uuidString)")
        try vault.run(["set", "cloud", "--expires-in", "1h", "--refresh-command", countingCommand(counter, delay: "1")])
            .expectSuccess()
        let results = Mutex<[ToolResult?]>([])
        onThreads(16) { _ in
            let result = try? vault.start(["get", "cloud"]).wait(seconds: timeout)
            results.withLock { $0.append(result) }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 16)
        for result in all {
            #expect(result?.status == 0, "stderr: \(result?.stderr ?? "timed out")")
            #expect(result?.stdoutText == "token-1")
        }
        #expect(runs(counter) == 1, "the refresh command ran \(runs(counter)) times")
        // Fresh for an hour now: the next read does not run it again.
        #expect(try vault.run(["get", "cloud"]).stdoutText == "token-1")
        #expect(runs(counter) == 1)
    }

    @Test("16 concurrent gets of an expired token on the file backend: the command runs once, all print its token")
    func singleFlightFile() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try Self.singleFlight(vault)
    }

    @Test("16 concurrent gets of an expired token on the Secret Service: the command runs once, all print its token")
    func singleFlightSecretService() throws {
        var vault = try VaultRunner.scripted()
        try SessionKeyring.require(&vault)
        vault.environment["VAULT_BACKEND"] = "secret-service"
        defer {
            SessionKeyring.clear(vault.service, vault)
            vault.cleanUp()
        }
        try Self.singleFlight(vault)
        // secret-tool reads the current access token itself.
        let lookup = try vault.runProgram(
            "/usr/bin/secret-tool", ["lookup", "service", vault.service, "username", "cloud"])
        #expect(lookup.stdoutText == "token-1")
    }

    @Test("a bare token keeps the --expires-in lifetime; a JSON response sets its own; both refresh again when due")
    func lifetimes() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let counter = vault.path("runs")
        try vault.run(["set", "bare", "--expires-in", "2h", "--refresh-command", Self.countingCommand(counter)])
            .expectSuccess()
        #expect(try vault.run(["get", "bare"]).stdoutText == "token-1")
        let shown = try vault.run(["show", "bare", "--json"]).stdoutText
        let expires = try #require(Self.field("expires", in: shown)).flatMap { Self.date($0) }
        #expect(abs(try #require(expires).timeIntervalSinceNow - 7200) < 120, "\(shown)")
        // expires_in 0: due at once, so every read runs the command (rotation across expiries).
        let json = "printf '{\"access_token\":\"tok-%s\",\"token_type\":\"Bearer\",\"expires_in\":0}' \"$n\""
        let jsonCounter = vault.path("json-runs")
        try vault.run([
            "set", "json", "--expires-in", "2h", "--refresh-command", Self.countingCommand(jsonCounter, json: json),
        ]).expectSuccess()
        for round in 1...3 {
            #expect(try vault.run(["get", "json"]).stdoutText == "tok-\(round)")
        }
        #expect(Self.runs(jsonCounter) == 3)
    }

    @Test("the command's failure is exit 5 with its stderr passed through, and nothing on stdout")
    func commandFails() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run([
            "set", "t", "--expires-in", "1h", "--refresh-command", "echo 'gcloud: login required' >&2; exit 3",
        ])
        .expectSuccess()
        let failed = try vault.run(["get", "t"])
        #expect(failed.status == 5)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.hasPrefix("gcloud: login required\nvault: "), "\(failed.stderr)")
        #expect(failed.stderr.contains("exited with status 3"))
        try vault.run(["set", "empty", "--expires-in", "1h", "--refresh-command", "true"]).expectSuccess()
        try vault.run(["get", "empty"]).expectFailure(5, "printed no token")
    }

    @Test("the command sees no key material: not in its argv, not in its environment, nothing on stdin")
    func commandHygiene() throws {
        var vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        vault.environment["VAULT_PASSPHRASE_UNUSED_MARKER"] = "kept"
        let seen = vault.path("seen")
        let command = "{ env; cat; } >'\(seen)'; echo fresh"
        try vault.run(["set", "t", "--expires-in", "1h", "--refresh-command", command], stdin: Array("old".utf8))
            .expectSuccess()
        // A token given on stdin is the current one: no run until it is due.
        #expect(try vault.run(["get", "t"]).stdoutText == "old")
        #expect(!FileManager.default.fileExists(atPath: seen))
        try vault.run(["set", "t", "--expires-in", "1h", "--refresh-command", command]).expectSuccess()
        let keys = ["VAULT_PASSPHRASE": "pass-do-not-leak", "VAULT_IDENTITY_FILE": vault.path("key-file-do-not-leak")]
        #expect(try vault.run(["get", "t"], env: keys).stdoutText == "fresh")
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(!environment.contains(vault.environment["VAULT_IDENTITY"]!))
        #expect(!environment.contains("pass-do-not-leak"))
        #expect(!environment.contains("key-file-do-not-leak"), "the refresh command got VAULT_IDENTITY_FILE")
        #expect(environment.contains("VAULT_PASSPHRASE_UNUSED_MARKER=kept"))
    }

    @Test("exec, ls --long and show --json see a living token as such; rm and a plain set end it")
    func readersAndLifecycle() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let counter = vault.path("runs")
        try vault.run(["set", "cli", "--expires-in", "30m", "--refresh-command", Self.countingCommand(counter)])
            .expectSuccess()
        try vault.set("plain", "p", ["--expires-at", "2001-02-03T04:05:06Z"])
        #expect(try vault.run(["ls"]).stdoutText == "cli\nplain\n")
        #expect(!(try vault.run(["ls", "--all"]).stdoutText.contains(".vault-token")))
        let long = try vault.run(["ls", "--long"]).stdoutText.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(long.map { $0[1] } == ["refreshable", "expired"])
        #expect(try vault.run(["ls", "--expired"]).stdoutText == "plain\n")
        let shown = try vault.run(["show", "cli", "--json"]).stdoutText
        #expect(shown.contains("\"token\":{\"kind\":\"command\""), "\(shown)")
        #expect(shown.contains("\"lifetime\":1800"))
        let exec = try vault.run([
            "exec", "--no-mask", "--env", "TOKEN=cli", "--", "/bin/sh", "-c", "printf %s \"$TOKEN\"",
        ])
        #expect(exec.stdoutText == "token-1", "\(exec.stderr)")
        #expect(!(try vault.run(["show", "cli", "--json"]).stdoutText.contains("token-1")))
        // A plain set replaces the living token with a static one: expired stays exit 3.
        try vault.set("cli", "static", ["--expires-at", "2001-02-03T04:05:06Z"])
        try vault.run(["get", "cli"]).expectFailure(3)
        #expect(!(try vault.run(["show", "cli", "--json"]).stdoutText.contains("\"token\"")))
        try vault.run(["set", "cli", "--expires-in", "30m", "--refresh-command", Self.countingCommand(counter)])
            .expectSuccess()
        try vault.run(["rm", "cli"]).expectSuccess()
        try vault.set("cli", "static", ["--expires-at", "2001-02-03T04:05:06Z"])
        try vault.run(["get", "cli"]).expectFailure(3)
        #expect(Self.runs(counter) == 1)
        try vault.run(["set", "x", "--refresh-command", "true"]).expectFailure(2, "--expires-in")
        try vault.run(["set", ".vault-token/x"], stdin: [1]).expectFailure(2, "reserved")
    }

    @Test("VAULT_REFRESH_SKEW: a token expiring within it is refreshed, never earlier than half its lifetime")
    func skew() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let counter = vault.path("runs")
        func setCurrent(lifetime: String, expiresIn seconds: Double) throws {
            try vault.run(
                [
                    "set", "t", "--expires-in", lifetime, "--expires-at", rfc3339(fromNow: seconds),
                    "--refresh-command", Self.countingCommand(counter),
                ], stdin: Array("current".utf8)
            ).expectSuccess()
        }
        try setCurrent(lifetime: "1h", expiresIn: 300)
        #expect(try vault.run(["get", "t"], env: ["VAULT_REFRESH_SKEW": "0"]).stdoutText == "current")
        #expect(try vault.run(["get", "t"]).stdoutText == "current")  // the default, 60 s
        #expect(try vault.run(["get", "t"], env: ["VAULT_REFRESH_SKEW": "600"]).stdoutText == "token-1")
        // Half of a 200 s lifetime is 100 s: a day's skew is cut to that, so 150 s left is not due.
        try setCurrent(lifetime: "200s", expiresIn: 150)
        #expect(try vault.run(["get", "t"], env: ["VAULT_REFRESH_SKEW": "86400"]).stdoutText == "current")
        try setCurrent(lifetime: "200s", expiresIn: 60)
        #expect(try vault.run(["get", "t"], env: ["VAULT_REFRESH_SKEW": "86400"]).stdoutText == "token-2")
        try vault.run(["get", "t"], env: ["VAULT_REFRESH_SKEW": "soon"]).expectFailure(2, "VAULT_REFRESH_SKEW")
    }

    static func field(_ key: String, in json: String) -> String?? {
        guard let data = json.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return .some(object[key] as? String)
    }

    static func date(_ text: String) -> Date? {
        ISO8601DateFormatter().date(from: text)
    }
}
