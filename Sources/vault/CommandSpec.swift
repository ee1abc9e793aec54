import VaultCore
import VaultFeatures
import VaultStorage

/// An option a command accepts.
struct OptionSpec: Sendable {
    let name: OptionName
    /// The placeholder of the option's value (`PATH`), or nil for a flag.
    let valueName: String?
    /// What a shell completes for the option's value.
    let completion: CompletionKind
    let repeatable: Bool
    let help: String
    /// A one-letter spelling (`-i` for `--in`), for the few options whose peers have one.
    let short: Character?

    init(
        _ name: OptionName, short: Character? = nil, value valueName: String? = nil,
        completion: CompletionKind = .text, repeatable: Bool = false, _ help: String
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.completion = completion
        self.repeatable = repeatable
        self.help = help
    }

    /// An option whose value is one of `choices`, shown as `a|b` and completed from the list.
    init(_ name: OptionName, choices: [String], _ help: String) {
        self.init(name, value: choices.joined(separator: "|"), completion: .list(choices), help)
    }

    var usage: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// A command: its name, how it is called, its help, and what it does.
///
/// The table ``all`` is the single source of the help text, the shell completions and the man
/// page test, so that they cannot disagree with the parser.
struct CommandSpec: Sendable {
    let name: String
    let operands: String
    /// What a shell completes for the operands.
    var operandCompletion: CompletionKind = .text
    let summary: String
    let details: String
    let options: [OptionSpec]
    let run: @Sendable (Invocation) throws(VaultError) -> Int32

    var synopsis: String {
        (["vault", name] + options.map { "[\($0.usage)]" } + (operands.isEmpty ? [] : [operands]))
            .joined(separator: " ")
    }

    /// The long name of a one-letter option (`i` → `in`), from every command's options.
    static func longName(of short: Character) -> OptionName? {
        all.lazy.flatMap(\.options).first { $0.short == short }?.name
    }

    /// Every command, in the order `vault help` lists them.
    static let all: [CommandSpec] = [
        .set, .get, .rm, .ls, .show, .exec, .inject, .importSecrets, .exportSecrets, .initialize, .rekey, .keygen,
        .migrate, .unlock, .lock, .doctor, .trust, .oauth, .otp, .git, .secretService, .completion, .help, .version,
    ]

    /// The options every command accepts.
    static let globalOptions: [OptionSpec] = [
        OptionSpec(
            .backend, choices: BackendKind.allCases.map(\.name),
            "where secrets are kept (default: VAULT_BACKEND, else auto)"),
        OptionSpec(
            .file, value: "PATH", completion: .file,
            "the vault file (default: VAULT_FILE, else $XDG_DATA_HOME/vault/vault.age)"),
        OptionSpec(.service, value: "NAME", "the service names belong to (default: VAULT_SERVICE, else vault)"),
        OptionSpec(.help, "show help for a command"),
    ]
}

/// What a command receives: its parsed arguments and the glue that builds stores.
struct Invocation {
    let commandLine: ParsedCommandLine
    let factory: StoreFactory

    var spec: CommandSpec { commandLine.command! }
    /// The environment the glue was built from (one copy, the factory's).
    var environment: [String: String] { factory.environment }

    func flag(_ name: OptionName) -> Bool { commandLine.flag(name) }
    func value(_ name: OptionName) -> String? { commandLine.value(name) }
    func all(_ name: OptionName) -> [String] { commandLine.all(name) }

    /// The operands, checked against a count range.
    func operands(_ range: ClosedRange<Int>) throws(VaultError) -> [String] {
        let operands = commandLine.operands + (commandLine.terminated ?? [])
        guard range.contains(operands.count) else {
            let expected =
                range.lowerBound == range.upperBound
                ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw VaultError(
                .usage,
                "'vault \(spec.name)' takes \(expected) operand(s), got \(operands.count); usage: \(spec.synopsis)")
        }
        return operands
    }

    /// The single NAME operand, as a name in the current service.
    func name() throws(VaultError) -> SecretName {
        try factory.name(try operands(1...1)[0])
    }

    /// A vault for the resolved backend.
    func vault() throws(VaultError) -> Vault {
        // A warning for the OpenBao backend only, asked by name: resolving `auto` (a D-Bus probe)
        // is left to makeStore, and the BAO_* variables are parsed only for OpenBao.
        if try factory.requestedBackend() == .openbao, let warning = factory.openBaoWarning() {
            StandardIO.error(warning)
        }
        return Vault(store: try factory.makeStore(), tokens: try factory.tokenSettings())
    }
}
