#if canImport(Glibc)
    import Glibc
#endif

/// `vault`: parse the command line, run one command, exit with its status.
@main
enum Entrypoint {
    static func main() {
        Hygiene.apply()
        let arguments = Array(CommandLine.arguments.dropFirst())
        exit(CommandLineTool.run(arguments: arguments, encodingProblem: ProcessEnvironment.encodingProblem()))
    }
}
