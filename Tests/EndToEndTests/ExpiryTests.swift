import Foundation
import Testing
import VaultTestSupport

/// Expiry in `get`, `ls` and `show`, with times in the past and the future (no sleeping).
@Suite("Expiry and metadata, end to end")
struct ExpiryTests {
    /// Four secrets: expired, expiring in 3 days, expiring in 30 days, never expiring.
    func populated() throws -> VaultRunner {
        let vault = try VaultRunner.scripted()
        try vault.set("old", "past", ["--expires-at", "2001-02-03T04:05:06Z"])
        try vault.set("ci/soon", "soon", ["--expires-in", "3d"])
        try vault.set("later", "later", ["--expires-at", rfc3339(fromNow: 30 * 86_400)])
        try vault.set("forever", "forever")
        return vault
    }

    @Test("an expired get prints nothing, says when on stderr and exits 3; --allow-expired prints it")
    func expiredGet() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        try vault.run(["get", "old"]).expectFailure(
            3, "expired at 2001-02-03T04:05:06Z; set a new value, or use --allow-expired")
        #expect(try vault.run(["get", "old", "--allow-expired"]).stdoutText == "past")
        #expect(try vault.run(["get", "ci/soon"]).stdoutText == "soon")
        #expect(try vault.run(["get", "later"]).stdoutText == "later")
        try vault.set("moment", "m", ["--expires-at", rfc3339(fromNow: -1)])
        try vault.run(["get", "moment"]).expectFailure(3)
    }

    @Test("ls prints bare names when stdout is not a terminal, whatever their expiry")
    func plainList() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let listed = try vault.run(["ls"])
        listed.expectSuccess()
        #expect(listed.stdoutText == "ci/soon\nforever\nlater\nold\n")
        #expect(listed.stderr.isEmpty)
        #expect(try vault.run(["ls", "--expired"]).stdoutText == "old\n")
    }

    @Test("ls --long: NAME, STATE, EXPIRES separated by tabs")
    func longList() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let lines = try vault.run(["ls", "--long"]).stdoutText.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(lines.map { $0[0] } == ["ci/soon", "forever", "later", "old"])
        #expect(lines.map { $0[1] } == ["soon", "valid", "valid", "expired"])
        #expect(lines[1][2] == "-")
        #expect(lines[3][2] == "2001-02-03T04:05:06Z")
        #expect(lines.allSatisfy { $0.count == 3 })
        // Other services (other tests, in a shared keyring) may have expired secrets too.
        let expired = try vault.run(["ls", "--long", "--expired", "--all"]).stdoutText.split(separator: "\n")
            .filter { $0.hasPrefix("\(vault.service)\t") }
        #expect(expired == ["\(vault.service)\told\texpired\t2001-02-03T04:05:06Z"])
        try vault.run(["ls", "--long", "--json"]).expectFailure(2, "not both")
    }

    @Test("ls on a terminal marks expired and soon-to-expire secrets")
    func terminalMarks() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let script = try #require(VaultRunner.which("script"), "util-linux script runs vault on a pseudo-terminal")
        let result = try vault.runProgram(script, ["-qec", "'\(VaultRunner.binary)' ls", "/dev/null"])
        result.expectSuccess()
        let lines = result.stdoutText.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("ci/soon  (expires ") && lines[0].hasSuffix(", within 7 days)"))
        #expect(lines[1] == "forever")
        #expect(lines[2] == "later")
        #expect(lines[3] == "old      (expired 2001-02-03T04:05:06Z)")
    }

    @Test("ls --json carries expires and expired, keys in a fixed order")
    func jsonList() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let json = try vault.run(["ls", "--json"]).stdout
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])
        #expect(array.map { $0["account"] as? String } == ["ci/soon", "forever", "later", "old"])
        #expect(array.map { $0["expired"] as? Bool } == [false, false, false, true])
        #expect(array[1]["expires"] is NSNull)
        let text = String(decoding: json, as: UTF8.self)
        let keys = ["\"service\":", "\"account\":", "\"created\":", "\"updated\":", "\"expires\":", "\"expired\":"]
        let first = text.split(separator: "\n")[1]
        let positions = keys.map { first.range(of: $0)!.lowerBound }
        #expect(positions == positions.sorted())
        let expired = try vault.run(["ls", "--json", "--expired"]).stdoutText
        #expect(expired.contains("\"account\":\"old\"") && !expired.contains("forever"))
    }

    @Test("show prints metadata and size, never the value, for valid, soon and expired secrets")
    func show() throws {
        let vault = try populated()
        defer { vault.cleanUp() }
        let old = try vault.run(["show", "old"])
        old.expectSuccess()
        let lines = old.stdoutText.split(separator: "\n")
        #expect(
            lines.map { String($0.prefix(9)) } == [
                "service: ", "account: ", "created: ", "updated: ", "expires: ", "expired: ", "size:    ",
            ])
        #expect(lines[1] == "account: old")
        #expect(lines[4] == "expires: 2001-02-03T04:05:06Z")
        #expect(lines[5] == "expired: yes")
        #expect(lines[6] == "size:    4 bytes")
        #expect(!old.stdoutText.contains("past"))
        #expect(try vault.run(["show", "forever"]).stdoutText.contains("expires: never\nexpired: no\n"))
        #expect(try vault.run(["show", "ci/soon"]).stdoutText.contains("(within 7 days)\nexpired: no\n"))

        let json = try vault.run(["show", "old", "--json"]).stdoutText
        #expect(json.hasPrefix("{\"service\":\"\(vault.service)\",\"account\":\"old\",\"created\":\""))
        #expect(json.hasSuffix(",\"expires\":\"2001-02-03T04:05:06Z\",\"expired\":true,\"size\":4}\n"))
        try vault.set("binary", [0, 0xFF, 0x0A])
        #expect(
            try vault.run(["show", "binary", "--json"]).stdoutText.hasSuffix(
                "\"expires\":null,\"expired\":false,\"size\":3}\n"))
        try vault.run(["show", "missing"]).expectFailure(1, "no secret named 'missing'")
        try vault.run(["show"]).expectFailure(2)
    }
}
