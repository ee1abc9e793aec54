import VaultCore
import VaultStorage

extension CommandSpec {
    static let help = CommandSpec(
        name: "help", operands: "[COMMAND]", operandCompletion: .command,
        summary: "show help for vault or for one command",
        details: "'vault help COMMAND' is the same as 'vault COMMAND --help'.",
        options: [],
        run: { (invocation) throws(VaultError) in
            let operands = try invocation.operands(0...1)
            guard let name = operands.first else {
                StandardIO.print(HelpText.overview)
                return ExitStatus.success
            }
            guard let spec = CommandSpec.named(name) else {
                throw VaultError(.usage, "unknown command \(shown(name, position: nil)); run 'vault help' for the list")
            }
            StandardIO.print(HelpText.forCommand(spec))
            return ExitStatus.success
        })

    static let version = CommandSpec(
        name: "version", operands: "",
        summary: "print vault's version",
        details: "The same as 'vault --version'.",
        options: [],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            StandardIO.print("vault \(versionString)\n")
            return ExitStatus.success
        })

    static let doctor = CommandSpec(
        name: "doctor", operands: "",
        summary: "show every backend, whether it is usable, and which one auto picks",
        details: """
            For each backend, prints whether it can be used now and why not. Then the backend that
            'auto' would pick and the rule that picked it. Exits 0 if the chosen backend is usable, 5 if not.
            The 'provider' line says whether vault is the Secret Service now (who owns the name on the
            session bus) and whether the bus starts it when asked ('vault secret-service enable').
            The 'unlock' line, before that, says whether the kernel keyring can keep an unlocked file key here (and why
            not), the scope, whether this login has a session keyring of its own, and until when the
            vault file is unlocked.
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let report = try Diagnosis(factory: invocation.factory)
            var text = ""
            for backend in report.backends {
                let name = backend.kind.rawValue.padding(to: 16)
                text += "\(name)\(backend.usable ? "usable    " : "unusable  ")\(backend.wording)\n"
            }
            text += report.vaultProvider.wording + "\n"
            text += UnlockDiagnosis(factory: invocation.factory).wording + "\n"
            text += report.chosenLine + "\n"
            StandardIO.print(text)
            return report.chosenUsable ? ExitStatus.success : ExitStatus.of(.unavailable)
        })
}
