import Foundation
import Testing
import VaultTestSupport

/// `printf %s "$TOKEN" | vault set NAME` with TOKEN unset pipes in nothing: an empty value is a
/// mistake unless asked for (issue 27, item 8). `import` keeps `KEY=` lines, normal in a `.env`.
@Suite("An empty value")
struct EmptyValueTests {
    @Test("set refuses an empty value (exit 2, one line, nothing stored) unless --allow-empty or --refresh-command")
    func refusedUnlessAsked() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let refused = try vault.run(["set", "github-token"])
        refused.expectFailure(2, "--allow-empty")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try vault.run(["ls"]).stdoutText == "", "an empty value was stored")
        // An existing value is not replaced by nothing either.
        try vault.run(["set", "kept"], stdin: Array("old".utf8)).expectSuccess()
        try vault.run(["set", "kept"]).expectFailure(2, "is empty")
        #expect(try vault.run(["get", "kept"]).stdoutText == "old")

        try vault.run(["set", "blank", "--allow-empty"]).expectSuccess()
        let blank = try vault.run(["get", "blank"])
        blank.expectSuccess()
        #expect(blank.stdout.isEmpty)

        // The refresh command provides the value: `vault set gcp --refresh-command ... </dev/null`.
        try vault.run(["set", "gcp", "--expires-in", "1h", "--refresh-command", "echo minted"]).expectSuccess()
        #expect(try vault.run(["get", "gcp"]).stdoutText == "minted")

        try vault.run(["import", "--format", "dotenv"], stdin: Array("EMPTY=\nFULL=x\n".utf8)).expectSuccess()
        #expect(try vault.run(["get", "EMPTY"]).stdout.isEmpty)
        #expect(try vault.run(["ls"]).stdoutText == "EMPTY\nFULL\nblank\ngcp\nkept\n")

        // The option is in the help and in every shell's completion (both made from the table).
        #expect(try vault.run(["help", "set"]).stdoutText.contains("--allow-empty"))
        for shell in ["bash", "zsh", "fish"] {
            #expect(try vault.run(["completion", shell]).stdoutText.contains("allow-empty"), "\(shell)")
        }
    }
}
