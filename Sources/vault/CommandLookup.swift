extension CommandSpec {
    /// The command called `name`, or nil.
    ///
    /// Builds that one command only: going through ``all`` built all of them, with their options
    /// and help texts, at every start (5% of a `get`). `CommandSpecTests` checks that this finds
    /// every command of ``all``.
    static func named(_ name: String) -> CommandSpec? {
        switch name {
        case "set": return .set
        case "get": return .get
        case "rm": return .rm
        case "ls": return .ls
        case "show": return .show
        case "exec": return .exec
        case "inject": return .inject
        case "import": return .importSecrets
        case "export": return .exportSecrets
        case "init": return .initialize
        case "rekey": return .rekey
        case "unlock": return .unlock
        case "lock": return .lock
        case "keygen": return .keygen
        case "migrate": return .migrate
        case "doctor": return .doctor
        case "trust": return .trust
        case "oauth": return .oauth
        case "otp": return .otp
        case "git": return .git
        case "secret-service": return .secretService
        case "completion": return .completion
        case "help": return .help
        case "version": return .version
        default: return nil
        }
    }
}
