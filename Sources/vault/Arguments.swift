import VaultCore
import VaultStorage

/// One token of the command line, before any meaning is given to it.
enum Token: Equatable {
    /// `--name`, `--name=value`, or `-h` (as `help`).
    case option(String, inlineValue: String?)
    /// Anything else, and everything after `--`.
    case positional(String)
}

/// Splits arguments into tokens. `--` ends the options: what follows is positional, even if it
/// starts with a dash (`vault get -- -odd-name`).
func tokenize(_ arguments: [String]) throws(VaultError) -> (tokens: [Token], terminated: [String]?) {
    var tokens: [Token] = []
    for (index, argument) in arguments.enumerated() {
        if argument == "--" { return (tokens, Array(arguments[(index + 1)...])) }
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                tokens.append(.option(String(body[..<equals]), inlineValue: String(body[body.index(after: equals)...])))
            } else {
                tokens.append(.option(String(body), inlineValue: nil))
            }
        } else if argument == "-h" {
            tokens.append(.option("help", inlineValue: nil))
        } else if argument.count == 2, argument.hasPrefix("-"), let long = CommandSpec.longName(of: argument.last!) {
            tokens.append(.option(long.spelling, inlineValue: nil))
        } else if argument.hasPrefix("-"), argument.utf8.count > 1 {
            throw VaultError(
                .usage,
                "unknown option \(shown(argument, position: index + 1)); options are spelled --name (see 'vault help')")
        } else {
            tokens.append(.positional(argument))
        }
    }
    return (tokens, nil)
}

/// A word of the command line as an error shows it: quoted when it is shaped like a command or an
/// option (ASCII lower-case letters, digits and '-', at most 32 bytes), else by its position
/// only, so that a value or a token typed in the wrong place never reaches a log.
func shown(_ word: some StringProtocol, position: Int?, quoted: Bool = true) -> String {
    let shaped =
        (1...32).contains(word.utf8.count)
        && word.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
    guard shaped else { return position.map { "(argument \($0))" } ?? "(not shown)" }
    return quoted ? "'\(word)'" : String(word)
}

/// A command line with its meaning: global options, the command, its options and operands.
struct ParsedCommandLine {
    var global = GlobalOptions()
    var command: CommandSpec?
    var values: [OptionName: [String]] = [:]
    var operands: [String] = []
    /// The arguments after `--`, if there was one (kept apart for `exec`).
    var terminated: [String]?
    var help = false
    var version = false

    func flag(_ name: OptionName) -> Bool { values[name] != nil }
    func value(_ name: OptionName) -> String? { values[name]?.last }
    func all(_ name: OptionName) -> [String] { values[name] ?? [] }
}

/// Gives the tokens their meaning. Global options may stand before or after the command.
func parseCommandLine(_ arguments: [String]) throws(VaultError) -> ParsedCommandLine {
    let (tokens, terminated) = try tokenize(arguments)
    var parsed = ParsedCommandLine()
    parsed.terminated = terminated
    var index = 0
    func takeValue(_ name: OptionName, _ inline: String?) throws(VaultError) -> String {
        if let inline { return inline }
        index += 1
        guard index < tokens.count, case .positional(let value) = tokens[index] else {
            throw VaultError(.usage, "--\(name) needs a value")
        }
        return value
    }
    while index < tokens.count {
        defer { index += 1 }
        switch tokens[index] {
        case .positional(let word):
            if parsed.command == nil {
                guard let spec = CommandSpec.named(word) else {
                    throw VaultError(
                        .usage, "unknown command \(shown(word, position: index + 1)); run 'vault help' for the list")
                }
                parsed.command = spec
            } else {
                parsed.operands.append(word)
            }
        case .option(let spelling, let inline):
            let name = OptionName(spelling)
            switch name {
            case .help:
                parsed.help = true
            case .version where parsed.command == nil:
                parsed.version = true
            case .backend: parsed.global.backend = try takeValue(name, inline)
            case .file: parsed.global.file = try takeValue(name, inline)
            case .service: parsed.global.service = try takeValue(name, inline)
            default:
                guard let spec = parsed.command, let option = spec.options.first(where: { $0.name == name }) else {
                    let scope = parsed.command.map { "'vault \($0.name)'" } ?? "vault"
                    throw VaultError(
                        .usage,
                        "unknown option \(shown("--" + spelling, position: index + 1, quoted: false)) for \(scope); "
                            + "see 'vault help \(parsed.command?.name ?? "")'")
                }
                if parsed.values[name] != nil, !option.repeatable {
                    throw VaultError(.usage, "--\(name) is given twice")
                }
                if option.valueName != nil {
                    parsed.values[name, default: []].append(try takeValue(name, inline))
                } else {
                    guard inline == nil else { throw VaultError(.usage, "--\(name) takes no value") }
                    parsed.values[name, default: []].append("")
                }
            }
        }
    }
    if parsed.global.file?.isEmpty == true { throw VaultError(.usage, "--file needs a path") }
    return parsed
}
