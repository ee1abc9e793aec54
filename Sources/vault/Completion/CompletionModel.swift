import VaultCore
import VaultStorage

/// What the completion scripts complete, read off the command table so that they cannot
/// disagree with the parser.
enum CompletionModel {
    /// The shells `vault completion` writes scripts for.
    static let shells = ["bash", "zsh", "fish"]

    /// The global options that select the store, passed on to `vault ls` to list names.
    static let storeOptions: [OptionName] = [.backend, .file, .service]

    /// The options `vault` takes before a command.
    static var topLevelOptions: [OptionSpec] {
        CommandSpec.globalOptions + [OptionSpec(.version, "print vault's version")]
    }

    /// Every option `spec` accepts: its own, then the global ones.
    static func options(of spec: CommandSpec) -> [OptionSpec] {
        spec.options + CommandSpec.globalOptions
    }

    static func script(for shell: String) throws(VaultError) -> String {
        switch shell {
        case "bash": return BashCompletion.script
        case "zsh": return ZshCompletion.script
        case "fish": return FishCompletion.script
        default: throw VaultError(.usage, "no completion for '\(shell)'; use bash, zsh or fish")
        }
    }

    /// A shell `case $prev in ... esac` with one arm per option that takes a value (bash and
    /// zsh share the shape; `arm` writes the shell's own arm), or "" when no option takes one.
    static func previousWordCases(
        _ options: [OptionSpec], indent: String, arm: (OptionSpec, CompletionKind) -> String
    ) -> String {
        let valued = options.filter { $0.valueName != nil }
        guard !valued.isEmpty else { return "" }
        return "\(indent)case $prev in\n" + valued.map { arm($0, $0.completion) }.joined() + "\(indent)esac\n"
    }

    /// Quotes a word for any of the three shells: `'...'` with each `'` written `'\''`
    /// (bash, zsh) or `\'` (fish, whose single quotes also take `\\`).
    static func quote(_ text: String, fish: Bool = false) -> String {
        if fish {
            return "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
        }
        return "'" + text.replacingAll("'", with: "'\\''") + "'"
    }
}

extension CommandSpec {
    static let completion = CommandSpec(
        name: "completion", operands: "bash|zsh|fish", operandCompletion: .list(CompletionModel.shells),
        summary: "print a shell completion script",
        details: """
            Prints a script that completes vault's commands, options and the secret names of the
            current store. The script lists names with 'vault ls' run with CI=1, standard input from
            /dev/null and standard error discarded, so completing never prompts: the store must be
            readable without a prompt (VAULT_IDENTITY, VAULT_PASSPHRASE_FILE, ... or an unlocked
            keyring), else names are not offered. Install it with, for example:
              bash: vault completion bash > ~/.local/share/bash-completion/completions/vault
              zsh:  vault completion zsh > "${fpath[1]}/_vault"
              fish: vault completion fish > ~/.config/fish/completions/vault.fish
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            let shell = try invocation.operands(1...1)[0]
            try StandardIO.write(try CompletionModel.script(for: shell).utf8, to: 1)
            return ExitStatus.success
        })
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
