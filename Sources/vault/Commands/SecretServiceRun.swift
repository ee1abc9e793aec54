import VaultCore
import VaultStorage

/// `vault secret-service run [--] COMMAND...`: COMMAND on a private session bus whose Secret
/// Service is this vault (docs/secret-service-provider.md).
extension SecretServiceAction {
    static let run = SecretServiceAction(
        name: "run",
        details: """
            'vault secret-service run [--] COMMAND [ARGS...]' (containers, CI) starts a private session bus
            (the system's dbus-daemon) whose Secret Service is this vault, started by the bus when
            COMMAND first asks for it, runs COMMAND on it with DBUS_SESSION_BUS_ADDRESS set, and stops the
            bus and the provider when COMMAND ends, also when COMMAND is killed; if vault itself is
            killed, the kernel stops the bus. Its exit status is COMMAND's (128 + N when signal N killed
            it; 127 or 126 if it cannot start). COMMAND runs in the foreground, without vault's key
            variables; the provider gets them. SIGTERM and SIGHUP to vault go on to COMMAND. No X11 or
            DISPLAY is needed.
            """,
        run: { (invocation, command) throws(VaultError) in try SecretServiceRun.run(invocation, command: command) })
}

enum SecretServiceRun {
    static let usage = "usage: vault secret-service run [--] COMMAND [ARGS...]"

    /// Starts the bus, runs COMMAND on it, stops the bus; COMMAND's exit status, a signal that
    /// killed it as 128 + its number (as a shell reports it), 127 or 126 if it cannot start.
    static func run(_ invocation: Invocation, command: [String]) throws(VaultError) -> Int32 {
        guard !command.isEmpty else { throw VaultError(.usage, "'run' needs a COMMAND; \(usage)") }
        let factory = invocation.factory
        let launch = try factory.providerLaunch(executable: try ThisProgram.path())
        let bus = try PrivateSessionBus.start(
            launch: launch, environment: invocation.environment, parent: factory.privateBusParent(),
            timeout: try factory.timeout())
        defer { bus.stop() }
        switch try bus.run(command, environment: invocation.environment) {
        case .waitStatus(let status):
            return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        case .notStarted(let failure):
            let notFound = failure == .noSuchFileOrDirectory
            let reason = notFound && !command[0].contains("/") ? "command not found" : failure.description
            StandardIO.error("secret-service run: \(command[0]): \(reason)")
            return notFound ? 127 : 126
        }
    }
}
