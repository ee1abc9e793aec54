import CVaultProcess
import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

extension CommandSpec {
    static let exec = CommandSpec(
        name: "exec", operands: "-- COMMAND [ARGS...]", operandCompletion: .program,
        summary: "run a command with secrets in its environment",
        details: """
            Runs COMMAND as vault's child (a COMMAND without '/' is searched in PATH; no shell is
            involved), with the chosen secrets added to the environment it inherits, and waits for it.
            --env VAR=NAME (repeatable) sets VAR to the secret NAME; a bare --env NAME, and every secret
            with --all (one-time code seeds left out: VAR=vault-otp://SERVICE/NAME in --env-file sets a
            code), uses the variable derived from the name: ASCII letters upper-cased, digits kept,
            every other byte replaced by '_', and '_' put before a leading digit (ci/npm-token ->
            CI_NPM_TOKEN). Two different secrets for one variable, a name with no letter or digit, and a
            value holding a NUL byte are usage errors (exit 2); a missing secret exits 1 and an expired
            one 3; all of this is checked before COMMAND runs. Values never appear in COMMAND's arguments.
            A derived variable never replaces one COMMAND would inherit, nor sets one that decides
            what code it loads or runs (LD_*, PATH, IFS, ENV, BASH_ENV, PYTHONSTARTUP, ...; see
            'man vault'): that is a usage error too, unless the variable is chosen with --env VAR=NAME.
            Every key variable (\(VaultVariables.keyMaterial.joined(separator: ", ")))
            is removed from COMMAND's environment, so it gets the secrets it was given, not the key
            to the vault. COMMAND starts in a new, empty session keyring, with vault's standard input.
            Masking: when standard output or standard error is not a terminal (a CI log, a pipe, a
            file), COMMAND's output on it goes through vault, which replaces with '***' every secret
            it injected (--env, --all, and the vault:// values of --env-file), each line of a
            multi-line one, and their standard and URL-safe base64 (also of the value followed by a
            newline, and inside longer base64), percent-encoding, JSON string escape and lower-case
            hex. Other transformations are not masked, nor values shorter than \(OutputMask.minimumLength) bytes, which
            vault names on stderr. Bytes that may begin a secret wait at most \(ExecRelay.holdMilliseconds) ms for the
            rest; after COMMAND exits, vault relays what its background processes still write for
            at most \(ExecRelay.drainMilliseconds / 1000) s. On a terminal, COMMAND keeps the terminal unless --mask; --no-mask
            turns masking off. With GITHUB_ACTIONS=true, vault first prints '::add-mask::' for each
            of those forms on stdout, so that the runner masks them in later steps too.
            SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 and SIGWINCH sent to vault are passed
            on to COMMAND (the terminal's own reach it directly). The exit status is COMMAND's own;
            killed by a signal, vault dies of the same signal (a shell reports 128+N); if COMMAND
            cannot be started, vault prints one line and exits 127 (not found) or 126 (found but not
            executable), as shells do.
            """,
        options: [
            OptionSpec(
                .env, value: "VAR=NAME", completion: .secretName, repeatable: true,
                "set VAR to the secret NAME (a bare NAME: derived VAR)"),
            OptionSpec(.all, "set a variable for every secret of the current service"),
            OptionSpec(.allowExpired, "use expired secrets instead of refusing them"),
            OptionSpec(
                .envFile, value: "FILE", completion: .file,
                "set the variables of a dotenv FILE; a value vault://SERVICE/NAME is that secret"),
            OptionSpec(.mask, "mask secrets in output that goes to a terminal too"),
            OptionSpec(.noMask, "do not mask secrets in COMMAND's output (nor print ::add-mask::)"),
        ],
        run: { (invocation) throws(VaultError) in
            let commandLine = invocation.commandLine
            guard commandLine.operands.isEmpty, let command = commandLine.terminated, !command.isEmpty else {
                throw VaultError(
                    .usage, "put the command after '--': vault exec --env VAR=NAME -- COMMAND [ARGS...]")
            }
            let texts = invocation.all(.env)
            guard !texts.isEmpty || invocation.flag(.all) || invocation.value(.envFile) != nil else {
                throw VaultError(.usage, "choose the secrets: --env VAR=NAME (repeatable) or --all; or --env-file FILE")
            }
            guard !(invocation.flag(.mask) && invocation.flag(.noMask)) else {
                throw VaultError(.usage, "--mask and --no-mask contradict each other; give one")
            }
            Hygiene.saveSignalDispositions()  // before the Secret Service backend loads GLib
            Hygiene.saveInheritedDescriptors()  // before a backend opens any
            let service = try invocation.factory.service()
            let vault = try invocation.vault()
            var bindings = invocation.flag(.all) ? try vault.bindingsForAll(service: service) : []
            for (index, text) in texts.enumerated() {
                bindings.append(try EnvironmentBinding(parsing: text, service: service, position: index + 1))
            }
            try EnvironmentBinding.checkDerived(bindings, inherited: Set(invocation.factory.environment.keys))
            let variables = try ExecEnvFile.variables(
                invocation, vault: vault,
                adding: try vault.environment(for: bindings, allowExpired: invocation.flag(.allowExpired)))
            let masking = ExecMasking(
                invocation.flag(.noMask) ? .off : invocation.flag(.mask) ? .always : .offTerminal,
                actions: invocation.factory.environment["GITHUB_ACTIONS"] == "true")
            return masking.run(
                command, setting: variables.map { ($0.variable, $0.value) },
                secrets: variables.filter(\.isSecret).map { ($0.variable, $0.value) },
                removing: VaultVariables.keyMaterial)
        })
}
