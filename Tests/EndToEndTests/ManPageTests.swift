import Foundation
import Testing
import VaultTestSupport

/// docs/vault.1 against the binary: the same commands and options, and clean roff.
///
/// The binary's help is generated from the command table, so `vault help` lists every command
/// and `vault help COMMAND` shows every option of one in its synopsis; the man page has one
/// `.SS COMMAND` per command and one `.TP` per option. A command or option added to the table
/// and not to the man page (or left in the man page after removal) fails here.
@Suite("Manual page")
struct ManPageTests {
    static let manPage = VaultRunner.packageRoot.appendingPathComponent("docs/vault.1").path

    /// Sections of the man page: `.SH` title → lines.
    func sections() throws -> [String: [String]] {
        let text = try String(contentsOfFile: Self.manPage, encoding: .utf8)
        var sections: [String: [String]] = [:]
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".SH ") {
                current = String(line.dropFirst(4)).replacingOccurrences(of: "\"", with: "")
            } else {
                sections[current, default: []].append(line)
            }
        }
        return sections
    }

    /// The `--options` named on the lines right after `.TP`.
    func options(_ lines: some Sequence<String>) -> Set<String> {
        var result = Set<String>()
        var afterTP = false
        for line in lines {
            if afterTP { result.formUnion(Self.longOptions(in: line.replacingOccurrences(of: "\\-", with: "-"))) }
            afterTP = line == ".TP"
        }
        return result
    }

    static func longOptions(in text: some StringProtocol) -> Set<String> {
        var result = Set<String>()
        var rest = Substring(text)
        while let range = rest.range(of: "--") {
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0 == "-" }
            if let first = name.first, first.isLetter { result.insert(String(name)) }
            rest = rest[range.upperBound...]
        }
        return result
    }

    /// Command → options, from the man page's COMMANDS section.
    func manCommands() throws -> [String: Set<String>] {
        var commands: [String: [String]] = [:]
        var current: String?
        for line in try sections()["COMMANDS"] ?? [] {
            if line.hasPrefix(".SS ") {
                current = String(line.dropFirst(4))
                commands[current!] = []
            } else if let current {
                commands[current]!.append(line)
            }
        }
        return commands.mapValues { options($0) }
    }

    /// Command → options, from the binary's help.
    func codeCommands(_ vault: VaultRunner) throws -> (commands: [String: Set<String>], global: Set<String>) {
        let overview = try vault.run(["help"]).stdoutText
        let listed = overview.components(separatedBy: "\ncommands:\n")[1].components(separatedBy: "\n\n")[0]
        let names = listed.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        var commands: [String: Set<String>] = [:]
        var global = Set<String>()
        for name in names {
            let help = try vault.run(["help", name]).stdoutText
            let parts = help.components(separatedBy: "\noptions for every command:\n")
            let synopsis = parts[0].split(separator: "\n")[0]
            commands[name] = Self.longOptions(in: synopsis)
            global = Self.longOptions(in: parts[1])
        }
        return (commands, global)
    }

    @Test("every command and option of the binary is in the man page, and nothing else")
    func sameCommandsAndOptions() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let (code, global) = try codeCommands(vault)
        let man = try manCommands()
        #expect(code.count >= 13)
        #expect(
            Set(code.keys) == Set(man.keys),
            "commands missing from the man page: \(Set(code.keys).subtracting(man.keys).sorted()); only in the man page: \(Set(man.keys).subtracting(code.keys).sorted())"
        )
        for (command, options) in code {
            let documented = man[command] ?? []
            #expect(
                options == documented,
                "vault \(command): options missing from the man page: \(options.subtracting(documented).sorted()); only in the man page: \(documented.subtracting(options).sorted())"
            )
        }
        // --version is accepted before any command, besides the options of every command.
        try vault.run(["--version"]).expectSuccess()
        #expect(options(try sections()["OPTIONS"] ?? []) == global.union(["version"]))
    }

    /// The variables `vault help` lists (generated from VaultCore's one list of them).
    func codeVariables(_ vault: VaultRunner) throws -> Set<String> {
        let overview = try vault.run(["help"]).stdoutText
        let parts = overview.components(separatedBy: "\nenvironment (")
        try #require(parts.count == 2, "vault help has no environment section")
        let lines = parts[1].components(separatedBy: "\n\n")[0].split(separator: "\n").dropFirst()
        return Set(lines.map { String($0.split(separator: " ")[0]) })
    }

    @Test("the environment variables and exit statuses are documented")
    func environmentAndStatuses() throws {
        let sections = try sections()
        // The words of the .TP headings: each variable has an entry of its own.
        var headings = Set<String>()
        var afterTP = false
        for line in sections["ENVIRONMENT"] ?? [] {
            if afterTP {
                headings.formUnion(
                    line.split(whereSeparator: { " \",".contains($0) }).map(String.init).filter { word in
                        word.first != "." && word.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }
                    })
            }
            afterTP = line == ".TP"
        }
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let variables = try codeVariables(vault)
        #expect(variables.isSuperset(of: ["VAULT_IDENTITY", "VAULT_TO_PASSPHRASE_FILE", "CI", "PATH"]))
        #expect(
            variables == headings,
            "variables without an entry in ENVIRONMENT: \(variables.subtracting(headings).sorted()); entries vault does not list: \(headings.subtracting(variables).sorted())"
        )
        let statuses = (sections["EXIT STATUS"] ?? []).joined(separator: "\n")
        for status in ["0", "1", "2", "3", "4", "5", "6", "7", "9"] {
            #expect(statuses.contains(".TP\n.B \(status)\n"), "exit status \(status)")
        }
        #expect(statuses.contains(".BR 126 \", \" 127"))
    }

    @Test("groff formats the page without a warning", .enabled(if: VaultRunner.which("groff") != nil))
    func groffClean() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let groff = try #require(VaultRunner.which("groff"))
        let result = try vault.runProgram(groff, ["-man", "-Tutf8", "-ww", "-z", Self.manPage])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}
