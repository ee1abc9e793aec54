import VaultCore

/// Help text, generated from the command table so it always matches the parser.
enum HelpText {
    static var overview: String {
        var text = """
            vault: keep API tokens, OAuth tokens and passwords out of scripts and dotfiles.

            usage: vault [--backend \(BackendKind.allCases.map(\.name).joined(separator: "|"))] [--file PATH] [--service NAME] COMMAND ...

            commands:

            """
        let width = (CommandSpec.all.map(\.name.count).max() ?? 0) + 2
        for spec in CommandSpec.all {
            text += "  \(spec.name)\(String(repeating: " ", count: width - spec.name.count))\(spec.summary)\n"
        }
        text += "\noptions for every command:\n"
        text += options(CommandSpec.globalOptions)
        text += "\nenvironment (details in 'man vault'; key variables never reach 'vault exec' commands):\n"
        text += environment
        text += """

            Values are read from standard input, never from the command line.
            Exit codes: 0 ok, 1 not found, 2 usage, 3 expired, 4 cannot unlock, 5 backend unavailable,
            6 store damaged, 7 conflict, 9 other error.
            Run 'vault help COMMAND' for a command's options.

            """
        return text
    }

    /// One line per variable of ``VaultVariables/all``, key variables marked.
    private static var environment: String {
        let width = (VaultVariables.all.map(\.name.utf8.count).max() ?? 0) + 2
        return VaultVariables.all.map { variable in
            let padding = String(repeating: " ", count: width - variable.name.utf8.count)
            return "  \(variable.name)\(padding)\(variable.meaning)\(variable.isKeyMaterial ? " (key)" : "")\n"
        }
        .joined()
    }

    static func forCommand(_ spec: CommandSpec) -> String {
        var text = "usage: \(spec.synopsis)\n\n\(spec.summary)\n\n\(spec.details)\n"
        if !spec.options.isEmpty {
            text += "\noptions:\n" + options(spec.options)
        }
        text += "\noptions for every command:\n" + options(CommandSpec.globalOptions)
        return text
    }

    private static func options(_ options: [OptionSpec]) -> String {
        let width = (options.map(\.usage.count).max() ?? 0) + 2
        return options.map { "  \($0.usage)\(String(repeating: " ", count: width - $0.usage.count))\($0.help)\n" }
            .joined()
    }
}
