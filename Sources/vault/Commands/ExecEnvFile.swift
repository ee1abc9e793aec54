import VaultCore
import VaultFeatures
import VaultStorage

/// `vault exec --env-file FILE`: the variables of a dotenv file whose values may be references.
enum ExecEnvFile {
    /// The variables `--env-file` sets, all resolved, followed by `bound` (from `--env` and
    /// `--all`), each with whether its value is a secret (bound ones and references are; a
    /// file's plain values are not). A variable set both ways is a usage error: neither
    /// silently wins.
    static func variables(
        _ invocation: Invocation, vault: Vault, adding bound: [(variable: String, value: [UInt8])]
    ) throws(VaultError) -> [(variable: String, value: [UInt8], isSecret: Bool)] {
        let marked = bound.map { ($0.variable, $0.value, true) }
        guard let path = invocation.value(.envFile) else { return marked }
        let fromFile = try EnvFile.variables(
            try ReferenceFiles.read(path, what: "env file"), vault: vault,
            allowExpired: invocation.flag(.allowExpired))
        let fileVariables = Set(fromFile.map(\.variable))
        if let both = bound.first(where: { fileVariables.contains($0.variable) }) {
            throw VaultError(.usage, "\(both.variable) is set both by --env-file and by --env or --all; keep one")
        }
        return fromFile + marked
    }
}
