#if canImport(Glibc)
    import Glibc
#endif

/// `vault`: parse the command line, run one command, exit with its status. Run as
/// `git-credential-vault` or `docker-credential-vault` (a link to it), the credential helper.
@main
enum Entrypoint {
    static func main() {
        Hygiene.apply()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let role = HelperRole(programPath: CommandLine.arguments.first ?? "") {
            exit(role.run(arguments: arguments, environment: ProcessEnvironment.all()))
        }
        exit(CommandLineTool.run(arguments: arguments, encodingProblem: ProcessEnvironment.encodingProblem()))
    }
}
