import VaultAge
import VaultSecureBytes
package import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Starts age plugins as child processes (``ChildProcess``), for VaultAge's protocol client.
///
/// VaultAge defines the protocol and this seam; the spawning lives here, in VaultCore, beside
/// vault's other child processes, so that the format library stays free of processes and
/// descriptors and is tested with an in-memory plugin.
///
/// A plugin is looked up in the ABSOLUTE folders of `PATH` only, as every program vault starts by
/// name (``ProgramSearch``). The whole conversation has one deadline: `waitLimit` seconds for
/// the plugin's own work, and `answerLimit` more for each question a person answers; a plugin
/// that takes longer (one that hangs, or keeps sending messages) is stopped, with all it started.
package struct PluginProcessLauncher: PluginLauncher {
    /// `PATH` as vault was given it.
    let searchPath: String?
    /// The plugin's environment: vault's, without the variables that hold key material. Made
    /// when a plugin starts, as a refresh command's is (``TokenSettings/commandEnvironment``):
    /// most commands start none.
    private let makeEnvironment: @Sendable () -> [String: String]
    /// Seconds the conversation may take, or the usage error of its variable.
    let waitLimit: Parsed<Double>
    /// What the limit is called in messages (`VAULT_TIMEOUT`, `VAULT_PROMPT_TIMEOUT`).
    let waitLimitName: String
    /// Seconds more for each question a person answers (`VAULT_PROMPT_TIMEOUT`).
    let answerLimit: Double
    /// Whether the plugin's standard error is vault's (at a terminal: its own hints reach the
    /// person) or /dev/null (elsewhere: nothing is mixed into vault's one-line messages).
    let keepErrorOutput: Bool

    package init(
        searchPath: String?, environment: @autoclosure @escaping @Sendable () -> [String: String],
        waitLimit: Parsed<Double>, waitLimitName: String, answerLimit: Double, keepErrorOutput: Bool
    ) {
        self.searchPath = searchPath
        makeEnvironment = environment
        self.waitLimit = waitLimit
        self.waitLimitName = waitLimitName
        self.answerLimit = answerLimit
        self.keepErrorOutput = keepErrorOutput
    }

    func start(plugin name: String, stateMachine: String) throws(AgeError) -> any PluginChannel {
        let seconds: Double
        switch waitLimit {
        case .success(let value): seconds = value
        case .failure(let error): throw AgeError(kind: .invalidKey, message: error.message)
        }
        guard let path = ProgramSearch.find("age-plugin-\(name)", in: searchPath) else {
            throw AgeError(kind: .plugin, message: ProgramSearch.notFound("age-plugin-\(name)"))
        }
        do {
            let child = try ChildProcess.spawn(
                path, arguments: [path, PluginCommandLine.argument(stateMachine: stateMachine)],
                environment: makeEnvironment(), input: .socket,
                keepErrorOutput: keepErrorOutput)
            return PluginProcess(
                child: child, name: name, waitLimit: seconds, waitLimitName: waitLimitName, answerLimit: answerLimit)
        } catch {
            throw AgeError(kind: .plugin, message: "age-plugin-\(name) could not be started: \(error)")
        }
    }
}

/// One running plugin: its standard input and output as a ``PluginChannel``.
final class PluginProcess: PluginChannel {
    private let child: ChildProcess
    private let name: String
    private let waitLimit: Double
    private let waitLimitName: String
    private let answerLimit: Double
    /// When the conversation must be over.
    private var deadline: Deadline
    /// Questions a person answered, each of which moved ``deadline``.
    private var answers = 0

    init(child: ChildProcess, name: String, waitLimit: Double, waitLimitName: String, answerLimit: Double) {
        self.child = child
        self.name = name
        self.waitLimit = waitLimit
        self.waitLimitName = waitLimitName
        self.answerLimit = answerLimit
        deadline = Deadline(seconds: waitLimit)
    }

    private var limitText: String {
        guard answers > 0 else { return "\(formatSeconds(waitLimit)) s (\(waitLimitName))" }
        let total = waitLimit + Double(answers) * answerLimit
        return
            "\(formatSeconds(total)) s (\(waitLimitName), plus VAULT_PROMPT_TIMEOUT per question answered: \(answers))"
    }

    func personAnswered() {
        answers += 1
        deadline = deadline.extended(by: answerLimit)
    }

    func send(_ bytes: SecureBytes) throws(AgeError) {
        guard bytes.withUnsafeBytes({ child.write($0, until: deadline) }) else {
            if case .success(let status) = child.wait(until: Deadline(seconds: 0)) {
                throw AgeError(
                    kind: .plugin,
                    message: "age-plugin-\(name) \(status.waitStatusText) in the middle of the conversation")
            }
            throw AgeError(
                kind: .plugin,
                message:
                    "age-plugin-\(name) stopped reading its input and did not finish within \(limitText); it was stopped"
            )
        }
    }

    func receive() throws(AgeError) -> SecureBytes {
        guard let bytes = child.read(limit: 16_384, until: deadline) else {
            throw AgeError(
                kind: .plugin, message: "age-plugin-\(name) did not finish within \(limitText); it was stopped")
        }
        // The output ends before the protocol does: a crash explains it better than "closed its
        // output". A process that dies closes its output before it can be reaped, so vault waits
        // for its exit, within the same limit as for an answer (a loaded machine may take a while
        // to finish a dying process); one that closed its output and lives on is stopped after it.
        if bytes.isEmpty, case .success(let status) = child.wait(until: Deadline(seconds: waitLimit)), status != 0 {
            throw AgeError(
                kind: .plugin, message: "age-plugin-\(name) \(status.waitStatusText) in the middle of the conversation")
        }
        return bytes
    }

    func finish(cleanly: Bool) {
        if cleanly {
            // After `done` the plugin has nothing left to do but exit once its input ends.
            child.closeInput()
            _ = child.wait(until: Deadline(seconds: min(waitLimit, 1)))
        }
        child.stop()
    }
}
