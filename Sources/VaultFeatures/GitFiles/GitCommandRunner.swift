import VaultSecureBytes
import VaultStorage
import VaultSystem

/// Runs `git` for `vault git setup`: git's own parser reads and writes its configuration and
/// finds the repository (work trees, `GIT_DIR`, `.git` files), so vault never edits
/// `.git/config` by hand.
///
/// git is a ``ChildProcess`` like every program vault starts: found in the absolute folders of
/// `PATH` (``ProgramSearch``), with standard input /dev/null, its standard error vault's, in a
/// process group and an empty session keyring of its own.
struct GitCommandRunner {
    /// The environment git runs with (the tool's, read once by the glue); its `PATH` finds git.
    let environment: [String: String]

    /// The most git may print for one question, in bytes (a path or a configuration value).
    static let outputLimit = 1 << 20
    /// Seconds git may take to answer: it reads and writes local files only, so a git still
    /// running after a minute hangs, and is stopped with all it started.
    static let timeout = 60.0

    /// git's standard output and exit status; its standard error goes to vault's.
    func run(_ arguments: [String]) throws(VaultError) -> (status: Int32, output: String) {
        guard let git = ProgramSearch.find("git", in: environment["PATH"]) else {
            throw VaultError(.unavailable, ProgramSearch.notFound("git"))
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                git, arguments: ["git"] + arguments, environment: environment, input: .null, keepErrorOutput: true)
        } catch {
            throw systemError("run git", error, code: .unavailable)
        }
        switch child.runToEnd(outputLimit: Self.outputLimit, until: Deadline(seconds: Self.timeout)) {
        case .waitFailed(let errno):
            throw systemError("wait for git", errno, code: .unavailable)
        case .timedOut:
            throw VaultError(
                .unavailable, "git did not finish within \(formatSeconds(Self.timeout)) s; it was stopped")
        case .exited(_, _, true):
            throw VaultError(.unavailable, "git printed more than 1 MiB")
        case .exited(let status, let output, false):
            // A signal reads as 128 + its number, as a shell shows it.
            let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return (code, output.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// git's output, trimmed; a failure of git is `.unavailable` naming what was asked.
    func output(_ arguments: [String], what: String) throws(VaultError) -> String {
        let (status, output) = try run(arguments)
        guard status == 0 else { throw VaultError(.unavailable, "git could not \(what) (exit status \(status))") }
        return output.trimmingSuffix(while: { $0 == "\n" })
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, predicate(last) { text.removeLast() }
        return text
    }
}

/// The command lines vault gives git: arguments for git, never words for the user (the one file
/// `LibraryWordingTests` lets name flags, for that reason).
enum GitArguments {
    static let topLevel = ["rev-parse", "--show-toplevel"]
    static let prefix = ["rev-parse", "--show-prefix"]
    static let commonDirectory = ["rev-parse", "--git-common-dir"]
    static func localValue(_ key: String) -> [String] { ["config", "--local", "--get", key] }
    static func setLocal(_ key: String, _ value: String) -> [String] { ["config", "--local", key, value] }
}
