import Foundation
import Testing
import VaultTestSupport

/// Long work counts its progress on a terminal (`migrating: 120/120`, redrawn in place: a
/// carriage return and an erase to the end of the line) and prints nothing new without one.
@Suite("Progress at a terminal")
struct ProgressLineTests {
    static let count = 120

    /// `python3 Tests/on-terminal.py sh -c SCRIPT`: stderr (and stdin) on a pseudo-terminal.
    func atTerminal(_ vault: VaultRunner, _ script: String) throws -> ToolResult {
        let driver = VaultRunner.packageRoot.appendingPathComponent("Tests/on-terminal.py").path
        return try runTool(
            "/usr/bin/python3", [driver, "/bin/sh", "-c", script, "sh", VaultRunner.binary],
            environment: vault.environment)
    }

    @Test("import and migrate draw done/total at a terminal; without one, stderr is as before")
    func importAndMigrate() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let input = vault.path("secrets.env")
        let lines = (1...Self.count).map { "KEY_\($0)=value-\($0)\n" }.joined()
        try Data(lines.utf8).write(to: URL(fileURLWithPath: input))

        let imported = try atTerminal(vault, "\"$1\" import --format dotenv <'\(input)'")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("\r\u{1B}[Kimporting: 1/\(Self.count)\r"), "\(imported.stderr)")
        #expect(imported.stderr.contains("importing: \(Self.count)/\(Self.count)"))
        #expect(imported.stderr.contains("imported \(Self.count) of \(Self.count) secrets"))

        let copy = vault.path("copy.age")
        let migrated = try atTerminal(vault, "\"$1\" migrate --from file --to 'file:\(copy)' --keep-source")
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stderr.contains("\r\u{1B}[Kmigrating: "), "\(migrated.stderr)")
        #expect(migrated.stderr.contains("migrating: \(Self.count)/\(Self.count)"))
        // The line is cleared before the summary, which starts at the left margin.
        #expect(migrated.stderr.contains("\r\u{1B}[K" + "vault: "), "\(migrated.stderr)")

        // No terminal: only the summary lines.
        let again = vault.path("again.age")
        let plain = try vault.run(["migrate", "--from", "file", "--to", "file:\(again)", "--keep-source"])
        plain.expectSuccess()
        #expect(!plain.stderr.contains("migrating"), "\(plain.stderr)")
        #expect(plain.stderr.hasPrefix("vault: ") && plain.stderr.filter { $0 == "\n" }.count == 1, "\(plain.stderr)")
        let quiet = try vault.run(
            ["import", "--format", "dotenv", "--service", "other"], stdin: Array(lines.utf8))
        quiet.expectSuccess()
        #expect(!quiet.stderr.contains("importing"), "\(quiet.stderr)")
    }
}
