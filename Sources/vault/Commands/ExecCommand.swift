import CVaultProcess
import VaultCore
import VaultSecureBytes

#if canImport(Glibc)
    import Glibc
#endif

extension CommandSpec {
    static let exec = CommandSpec(
        name: "exec", operands: "-- COMMAND [ARGS...]", operandCompletion: .program,
        summary: "run a command with secrets in its environment",
        details: """
            Runs COMMAND in place of vault (execvp: a COMMAND without '/' is searched in PATH; no shell
            is involved), with the chosen secrets added to the environment it inherits. --env VAR=NAME
            (repeatable) sets VAR to the secret NAME; a bare --env NAME, and every secret with --all
            (one-time code seeds left out: VAR=vault-otp://SERVICE/NAME in --env-file sets a code),
            uses the variable derived from the name: ASCII letters upper-cased, digits kept, every other
            byte replaced by '_', and '_' put before a leading digit (ci/npm-token -> CI_NPM_TOKEN).
            Two different secrets for one variable, a name with no letter or digit, and a value holding
            a NUL byte are usage errors (exit 2); a missing secret exits 1 and an expired one 3; all of
            this is checked before COMMAND runs. Values never appear in COMMAND's arguments.
            A derived variable never replaces one COMMAND would inherit, nor sets one that decides
            what code it loads or runs (LD_*, PATH, IFS, ENV, BASH_ENV, PYTHONSTARTUP, ...; see
            'man vault'): that is a usage error too, unless the variable is chosen with --env VAR=NAME.
            Every key variable (\(VaultVariables.keyMaterial.joined(separator: ", ")))
            is removed from COMMAND's environment, so it gets the secrets it was given, not the key
            to the vault. The exit status is COMMAND's own; if it cannot be started, vault prints one
            line and exits 127 (not found) or 126 (found but not executable), as shells do.
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
            return ProcessImage.replace(with: command, setting: variables, removing: VaultVariables.keyMaterial)
        })
}

/// Replaces the vault process with another program.
enum ProcessImage {
    /// Calls `execvpe` with vault's environment less `removing` and the variables being set,
    /// plus `setting`. Returns only if that fails, with the status a shell would give (127: not
    /// found, 126: found but not executable), after printing one line.
    ///
    /// The environment is built as a new array rather than with `setenv`, which is not safe
    /// while another thread (a D-Bus worker of the Secret Service backend) may read it.
    static func replace(
        with arguments: [String], setting variables: [(variable: String, value: [UInt8])], removing: [String]
    ) -> Int32 {
        var envp = ProcessEnvironment.entries(dropping: removing + variables.map(\.variable))
        var added: [UnsafeMutableBufferPointer<UInt8>] = []
        for (variable, value) in variables {
            let bytes = Array(variable.utf8) + [UInt8(ascii: "=")] + value + [0]
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = buffer.initialize(from: bytes)
            added.append(buffer)
            envp.append(UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
        envp.append(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        // COMMAND gets no descriptor of vault's own, only those vault was started with.
        Hygiene.restoreForChild()
        // COMMAND gets a new, empty session keyring: it must not reach the cached key of the
        // whole vault file, only the secrets it was given.
        FileKeyCache.isolateChildren()
        CVaultProcess_execvpe(arguments[0], argv, envp)
        let failure = Errno(rawValue: errno)
        for buffer in added {
            zeroSecret(UnsafeMutableRawBufferPointer(buffer))
            buffer.deallocate()
        }
        for pointer in argv { free(pointer) }
        let notFound = failure == .noSuchFileOrDirectory
        let searched = !arguments[0].contains("/")
        let reason = notFound && searched ? "command not found" : failure.description
        StandardIO.error("exec: \(arguments[0]): \(reason)")
        return notFound ? 127 : 126
    }
}
