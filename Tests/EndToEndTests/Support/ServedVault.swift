import Foundation
import Testing
import VaultAge
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault secret-service serve` on a private session bus of the test's own (the main suite's bus
/// has gnome-keyring owning the name), over an identity vault: the provider tests' fixture.
///
/// The provider is started with the vault's environment (VAULT_FILE, VAULT_IDENTITY unless
/// `withKey` is false) and is stopped, with the bus, by process id.
final class ServedVault {
    let vault: IdentityVault
    let bus: PrivateBus
    private(set) var provider: pid_t = 0

    /// The programs the provider tests run, or why they cannot run here.
    static func missingTools() -> String? {
        PrivateBus.missingTools(for: .none)
            ?? (findExecutable("secret-tool") == nil ? "not installed: secret-tool" : nil)
    }

    /// Whether this fixture made the vault (and removes it).
    private let ownsVault: Bool

    /// A provider over a new vault (`prepare` runs before it starts), or over `sharing`'s vault
    /// file, on a bus of its own.
    init(withKey: Bool = true, sharing: ServedVault? = nil, file prepare: ((IdentityVault) throws -> Void)? = nil)
        throws
    {
        try requireKeyringComponent(Self.missingTools())
        vault = try sharing?.vault ?? IdentityVault()
        ownsVault = sharing == nil
        bus = try PrivateBus(.none)
        try prepare?(vault)
        try start(withKey: withKey)
    }

    deinit {
        stopProvider()
        bus.stop()
        if ownsVault { vault.cleanUp() }
    }

    /// The environment of every client: the vault's (HOME, no VAULT_* key) and the private bus.
    var clientEnvironment: [String: String] {
        var environment = vault.runner.environment.merging(bus.environment) { $1 }
        environment["VAULT_IDENTITY"] = nil
        return environment
    }

    /// Starts the provider and waits until it owns org.freedesktop.secrets.
    func start(withKey: Bool = true) throws {
        var environment = vault.runner.environment.merging(bus.environment) { $1 }
        if !withKey { environment["VAULT_IDENTITY"] = nil }
        let log = bus.directory.appendingPathComponent("provider.err").path
        provider = try spawnChild(
            VaultRunner.binary, ["secret-service", "serve"], environment: environment, input: .null, errors: log,
            ownGroup: true)
        try bus.waitForName("org.freedesktop.secrets")
    }

    func stopProvider() {
        if provider > 0 { stopChild(provider) }
        provider = 0
    }

    /// Kills the provider with SIGKILL and reaps it.
    func killProvider() {
        guard provider > 0 else { return }
        kill(provider, SIGKILL)
        _ = waitChild(provider, timeout: 10)
        provider = 0
    }

    /// Whether the provider is still running (an exited one is reaped).
    var providerIsRunning: Bool { provider > 0 && waitForExit(timeout: 0) == nil }

    /// Waits up to `timeout` seconds for the provider to exit: its status, or nil while it runs.
    func waitForExit(timeout: Double) -> Int32? {
        guard provider > 0 else { return nil }
        let status = waitChild(provider, timeout: timeout)
        if status != nil { provider = 0 }
        return status
    }

    /// Runs a client program against the provider.
    func run(_ executable: String, _ arguments: [String], stdin: [UInt8] = [], timeout: Double = 30) throws
        -> ToolResult
    {
        try runTool(
            executable, arguments, input: stdin, environment: clientEnvironment, timeout: timeout, ownGroup: true)
    }

    func secretTool(_ arguments: [String], stdin: [UInt8] = []) throws -> ToolResult {
        try run(findExecutable("secret-tool")!, arguments, stdin: stdin)
    }

    /// Calls a method with gdbus; `arguments` in GVariant text.
    func gdbus(_ path: String, _ method: String, _ arguments: [String] = []) throws -> ToolResult {
        try run(
            findExecutable("gdbus")!,
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path, "--method", method]
                + arguments)
    }

    /// Runs a Python 3 program (Debian's python3 with python3-secretstorage and jeepney).
    func python(_ program: String, _ arguments: [String] = []) throws -> ToolResult {
        try run("/usr/bin/python3", ["-c", program] + arguments, timeout: 60)
    }

    /// The provider's standard error so far.
    var providerLog: String {
        (try? String(contentsOf: bus.directory.appendingPathComponent("provider.err"), encoding: .utf8)) ?? ""
    }
}
