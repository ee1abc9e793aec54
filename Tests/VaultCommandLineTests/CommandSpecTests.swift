import Testing

@testable import vault

/// The command table's invariants, which the parser, the help and the completions rely on.
@Suite("Command table")
struct CommandSpecTests {
    @Test("no command has two options of one name, nor one that shadows a global option")
    func optionNamesAreUnique() {
        for spec in CommandSpec.all {
            let names = (spec.options + CommandSpec.globalOptions).map(\.name)
            #expect(Set(names).count == names.count, "vault \(spec.name)")
        }
    }

    @Test("one-letter spellings are unique across commands")
    func shortNamesAreUnique() {
        let options = CommandSpec.all.flatMap(\.options).filter { $0.short != nil }
        for option in options {
            #expect(Set(options.filter { $0.short == option.short }.map(\.name)).count == 1, "-\(option.short!)")
            #expect(CommandSpec.longName(of: option.short!) == option.name)
        }
    }

    @Test("looking a command up by name finds each command of the table, and nothing else")
    func lookupMatchesTable() {
        for spec in CommandSpec.all {
            #expect(CommandSpec.named(spec.name)?.synopsis == spec.synopsis, "vault \(spec.name)")
        }
        for word in ["", "Get", "gets", "list", "remove", "--help", "version2"] {
            #expect(CommandSpec.named(word) == nil, "\(word)")
        }
    }

    @Test("a flag completes nothing; an option with choices shows and completes the same words")
    func completionKinds() {
        for option in CommandSpec.all.flatMap(\.options) + CompletionModel.topLevelOptions {
            if option.valueName == nil { #expect(option.completion == .text, "--\(option.name)") }
            if case .list(let words) = option.completion {
                #expect(option.valueName == words.joined(separator: "|"), "--\(option.name)")
            }
        }
        let backend = CommandSpec.globalOptions.first { $0.name == .backend }
        #expect(backend?.completion == .list(["auto", "file", "secret-service", "openbao"]))
        #expect(CommandSpec.named("get")?.operandCompletion == .secretName)
        #expect(CommandSpec.named("exec")?.operandCompletion == .program)
    }
}
