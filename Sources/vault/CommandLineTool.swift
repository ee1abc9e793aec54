import VaultCore
import VaultStorage

/// Runs one command line and returns the exit status: where a command's failure becomes its one
/// line on standard error and its exit code. (The credential helpers answer in their callers'
/// protocols and word their own errors; `vault git merge` reports each file it leaves alone.)
enum CommandLineTool {
    /// Parses and runs `arguments`. The environment is read only once a command runs, so
    /// `--version` and `--help` never pay for copying it (unless a command's help note needs it).
    static func run(
        arguments: [String], environment: @autoclosure () -> [String: String] = ProcessEnvironment.all(),
        encodingProblem: VaultError? = nil
    ) -> Int32 {
        do throws(VaultError) {
            if let encodingProblem { throw encodingProblem }
            let parsed = try parseCommandLine(arguments)
            if parsed.version, parsed.command == nil {
                StandardIO.print("vault \(versionString)\n")
                return ExitStatus.success
            }
            guard let command = parsed.command else {
                guard parsed.help else { throw VaultError(.usage, "no command given; run 'vault help' for the list") }
                StandardIO.print(HelpText.overview)
                return ExitStatus.success
            }
            if parsed.help {
                var text = HelpText.forCommand(command)
                let note = HelpNotes.note(for: command.name) {
                    StoreFactory(
                        options: parsed.global, configuration: ProcessEnvironment.configuration(environment()),
                        prompt: nil)
                }
                if let note { text += "\n" + note }
                StandardIO.print(text)
                return ExitStatus.success
            }
            let configuration = ProcessEnvironment.configuration(environment())
            var factory = StoreFactory(
                options: parsed.global, configuration: configuration,
                prompt: Terminal.passphrasePrompt(allowed: configuration.allowsPrompts))
            factory.pluginPrompts = Terminal.pluginPrompts(
                allowed: configuration.allowsPrompts, timeout: factory.promptSeconds)
            return try command.run(Invocation(commandLine: parsed, factory: factory))
        } catch {
            StandardIO.error(error.wording)
            return ExitStatus.of(error.code)
        }
    }
}

/// The version printed by `vault --version`.
let versionString = "1.0.0"
