import VaultCore

/// The credential helpers vault also is, chosen by the name it is run under (argv[0]): a
/// symbolic link `git-credential-vault` or `docker-credential-vault` to the binary, whatever
/// the binary itself is called.
enum HelperRole {
    case git
    case docker

    init?(programPath: String) {
        let name = programPath.split(separator: "/").last.map(String.init) ?? programPath
        switch name {
        case "git-credential-vault": self = .git
        case "docker-credential-vault": self = .docker
        default: return nil
        }
    }

    /// Runs the helper with its arguments and returns the exit status.
    func run(arguments: [String], environment: [String: String]) -> Int32 {
        switch self {
        case .git: return GitCredentialHelper.run(arguments: arguments, environment: environment)
        case .docker: return DockerCredentialHelper.run(arguments: arguments, environment: environment)
        }
    }

    /// Splits a helper's arguments into vault's global options (`--backend`, `--file`,
    /// `--service`, as in `credential.helper = vault --file ~/git.age`) and the operands.
    static func parse(_ arguments: [String]) throws(VaultError) -> (options: GlobalOptions, operands: [String]) {
        let parsed = try parseCommandLine(["help"] + arguments)
        guard parsed.values.isEmpty, !parsed.help else {
            throw VaultError(
                .usage, "a credential helper takes only --backend, --file and --service before its operation")
        }
        return (parsed.global, parsed.operands + (parsed.terminated ?? []))
    }

    /// Builds the store the way `vault` does for the same options and environment.
    static func store(_ options: GlobalOptions, environment: [String: String]) throws(VaultError) -> any SecretStore {
        try StoreFactory(
            options: options, environment: environment, prompt: Terminal.passphrasePrompt(environment: environment)
        ).makeStore()
    }
}
