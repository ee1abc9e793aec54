import Testing
import VaultCore

@testable import VaultStorage
@testable import vault

/// The parser of `Arguments.swift`, in-process: tokens, global and command options, values,
/// operands and every usage error. The end-to-end tests keep what only the binary shows (exit
/// codes, one line on stderr).
@Suite("Arguments")
struct ArgumentsTests {
    @Test("tokens: --name=value, -h, one-letter options, and everything after -- is positional")
    func tokens() throws {
        let (tokens, terminated) = try tokenize(["--file=a=b", "-h", "-i", "x", "--", "-odd", "--json"])
        #expect(
            tokens == [
                .option("file", inlineValue: "a=b"), .option("help", inlineValue: nil),
                .option("in", inlineValue: nil), .positional("x"),
            ])
        #expect(terminated == ["-odd", "--json"])
        #expect(try tokenize(["get", "a"]).terminated == nil)
        #expect(try tokenize(["-"]).tokens == [.positional("-")])
    }

    @Test("global options stand before or after the command")
    func globalOptions() throws {
        let parsed = try parseCommandLine(["--service", "s", "get", "--file", "f", "--backend=file", "name"])
        #expect(parsed.command?.name == "get")
        #expect(parsed.global == GlobalOptions(backend: "file", file: "f", service: "s"))
        #expect(parsed.operands == ["name"])
        #expect(parsed.values.isEmpty)
    }

    @Test("values, repeated values, flags and the command after --")
    func values() throws {
        let parsed = try parseCommandLine(["exec", "--env", "A=a", "--env=B", "--all", "--", "env", "-i"])
        #expect(parsed.all(.env) == ["A=a", "B"])
        #expect(parsed.value(.env) == "B")
        #expect(parsed.flag(.all))
        #expect(!parsed.flag(.allowExpired))
        #expect(parsed.value(.envFile) == nil)
        #expect(parsed.operands.isEmpty)
        #expect(parsed.terminated == ["env", "-i"])
    }

    @Test("one-letter spellings name their long option")
    func shortOptions() throws {
        let parsed = try parseCommandLine(["inject", "-i", "template", "-o", "out"])
        #expect(parsed.value(.input) == "template")
        #expect(parsed.value(.output) == "out")
    }

    @Test("help and version")
    func helpAndVersion() throws {
        #expect(try parseCommandLine(["-h"]).help)
        #expect(try parseCommandLine(["get", "--help"]).help)
        #expect(try parseCommandLine(["--version"]).version)
        #expect(try parseCommandLine(["--version"]).command == nil)
    }

    @Test(
        "usage errors",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["get", "--bogus", "a"], "unknown option --bogus for 'vault get'"),
            (["--bogus"], "unknown option --bogus for vault"),
            (["-x"], "unknown option '-x'"),
            (["get", "--version"], "unknown option --version"),
            (["--backend"], "--backend needs a value"),
            (["--backend", "--file", "f"], "--backend needs a value"),
            (["exec", "--env"], "--env needs a value"),
            (["ls", "--json=yes"], "--json takes no value"),
            (["ls", "--json", "--json"], "--json is given twice"),
            (["--file", "", "ls"], "--file needs a path"),
            (["--file=", "ls"], "--file needs a path"),
        ])
    func usageErrors(arguments: [String], fragment: String) {
        do {
            let parsed = try parseCommandLine(arguments)
            Issue.record("\(arguments) parsed as \(parsed.command?.name ?? "no command")")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test("a word that is not shaped like an option or a command is shown by its position only")
    func unshapedWordsAreNotQuoted() {
        for (arguments, position) in [(["get", "--Token_ABC"], 2), (["Token_ABC"], 1), (["-Token"], 1)] {
            do {
                _ = try parseCommandLine(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(!error.message.contains("Token"), "\(error.message)")
                #expect(error.message.contains("(argument \(position))"), "\(error.message)")
            }
        }
    }

    @Test("--env may repeat; every other option may not")
    func repeatable() throws {
        #expect(try parseCommandLine(["init", "--recipient", "a", "--recipient", "b"]).all(.recipient) == ["a", "b"])
        #expect(throws: VaultError(.usage, "--allow-expired is given twice")) {
            try parseCommandLine(["get", "--allow-expired", "--allow-expired"])
        }
    }
}
