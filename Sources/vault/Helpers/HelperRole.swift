import VaultCore
import VaultStorage
import VaultSystem

/// The credential helpers vault also is, chosen by the name it is run under (argv[0]): a
/// symbolic link `git-credential-vault` or `docker-credential-vault` to the binary, whatever
/// the binary itself is called.
enum HelperRole {
    case git
    case docker

    init?(programPath: String) {
        switch FileSystem.baseName(of: programPath) {
        case "git-credential-vault": self = .git
        case "docker-credential-vault": self = .docker
        default: return nil
        }
    }

    /// Runs the helper with its arguments and returns the exit status.
    func run(arguments: [String], environment: [String: String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            StandardIO.print(help)
            return ExitStatus.success
        }
        switch self {
        case .git: return GitCredentialHelper.run(arguments: arguments, environment: environment)
        case .docker: return DockerCredentialHelper.run(arguments: arguments, environment: environment)
        }
    }

    var help: String {
        switch self {
        case .git:
            return """
                \(GitCredentialHelper.usage)

                git's credential helper (gitcredentials(7)): git config --global credential.helper vault
                Credentials are the secrets PROTOCOL://USER@HOST[/PATH] of the service git (on the Secret
                Service, git-credential-libsecret's items). See CREDENTIAL HELPERS in 'man vault'.

                """
        case .docker:
            return """
                \(DockerCredentialHelper.usage)

                The docker-credential-helpers protocol: "credsStore": "vault" or "credHelpers" in the auth file.
                Credentials are the secrets docker://USER@SERVER of the service docker. A missing one answers
                'credentials not found in native keychain' and exits 1; every error goes to standard output
                with exit 1, as the reference helpers do. See CREDENTIAL HELPERS in 'man vault'.

                """
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
        let configuration = ProcessEnvironment.configuration(environment)
        var factory = StoreFactory(
            options: options, configuration: configuration,
            prompt: Terminal.passphrasePrompt(allowed: configuration.allowsPrompts))
        factory.pluginPrompts = Terminal.pluginPrompts(
            allowed: configuration.allowsPrompts, timeout: factory.promptSeconds)
        return try factory.makeStore()
    }
}
