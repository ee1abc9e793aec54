public import Foundation
import Testing

/// A D-Bus session bus of a test's own, with whatever should (or should not) answer on it.
///
/// libsecret talks to the bus named by DBUS_SESSION_BUS_ADDRESS and keeps that connection for
/// the life of the process, so tests that need a different bus (no provider, a provider that
/// never answers, a locked keyring) start one here and run the store in a child process (an
/// exit test) whose environment points at it. The bus is the shell scripts' private bus and is
/// waited for by their loop (Tests/bus.sh): it has no service activation, so nothing starts on it
/// unless the test starts it (``launch(_:_:_:_:stdin:)``, then ``waitForName(_:timeout:)``).
/// Everything started is stopped by process id.
public final class PrivateBus {
    public let directory: URL
    public let address: String
    private var processes: [pid_t] = []

    /// What to run on the bus besides the bus itself.
    public enum Peer {
        /// Nothing: the Secret Service name has no owner and cannot be activated.
        case none
        /// A process that owns org.freedesktop.secrets and never answers a call.
        case silentOwner
        /// gnome-keyring-daemon with a fresh login keyring, unlocked with this password.
        case keyring(password: String)
    }

    /// The programs a peer needs, or why the test cannot run here.
    public static func missingTools(for peer: Peer) -> String? {
        var tools = ["dbus-daemon", "gdbus"]
        switch peer {
        case .none: break
        case .silentOwner: tools.append("python3 (Debian's /usr/bin/python3 with python3-dbus)")
        case .keyring: tools += ["gnome-keyring-daemon", "secret-tool"]
        }
        let missing = tools.filter { tool in
            tool.hasPrefix("python3") ? !hasPythonDBus : findExecutable(tool) == nil
        }
        return missing.isEmpty ? nil : "not installed: \(missing.joined(separator: ", "))"
    }

    private static var hasPythonDBus: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && (try? runTool("/usr/bin/python3", ["-c", "import dbus"], timeout: 30).status) == 0
    }

    public convenience init(_ peer: Peer) throws {
        try self.init(peer, activation: nil)
    }

    /// A bus as a login's: services are activated from the standard folders that `environment`'s
    /// XDG_RUNTIME_DIR, XDG_DATA_HOME and XDG_DATA_DIRS name, and get that environment
    /// (Tests/bus.sh's exec_session_bus); nothing runs on it until something is activated.
    public convenience init(activatingWith environment: [String: String]) throws {
        try self.init(.none, activation: environment)
    }

    private init(_ peer: Peer, activation: [String: String]?) throws {
        directory = try makeTemporaryDirectory(prefix: "vault-bus")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        do {
            try startBus(socket: socket, activation: activation)
            try waitUntil("the private bus at \(socket)", "test", "-S", socket)
            switch peer {
            case .none: break
            case .silentOwner: try startSilentOwner()
            case .keyring(let password): try startKeyring(password: password)
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The environment for a program (or exit test) that should use this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Runs a program against this bus.
    public func run(_ executable: String, _ arguments: [String], stdin: [UInt8] = []) throws -> ToolResult {
        try runTool(
            executable, arguments, input: stdin, environment: inheritedEnvironment(adding: environment), timeout: 20,
            ownGroup: true)
    }

    /// Stores a secret with secret-tool, then locks the login keyring (a keyring peer only).
    public func storeAndLock(service: String, account: String) throws {
        let stored = try run(
            findExecutable("secret-tool")!,
            ["store", "--label=locked test", "service", service, "username", account], stdin: Array("value".utf8))
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
        // secret-tool 0.20's `lock` command hangs; the D-Bus call is what it would do.
        let locked = try run(
            findExecutable("gdbus")!,
            [
                "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']",
            ])
        try #require(locked.status == 0, "locking the keyring: \(locked.stderr)")
    }

    /// Stops everything this bus started, newest first, by process id.
    public func stop() {
        for pid in processes.reversed() { stopChild(pid) }
        processes = []
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a program on this bus in the background, its stdin from `stdin` and its output in
    /// NAME.out and NAME.err in ``directory`` (shown when a wait fails); stopped with the bus.
    public func launch(
        _ name: String, _ executable: String, _ arguments: [String], _ environment: [String: String] = [:],
        stdin: [UInt8] = []
    ) throws {
        let input = directory.appendingPathComponent("\(name).in")
        try Data(stdin).write(to: input)
        let pid = try spawnChild(
            executable, arguments, environment: inheritedEnvironment(adding: environment), input: .file(input.path),
            output: directory.appendingPathComponent("\(name).out").path,
            errors: directory.appendingPathComponent("\(name).err").path, ownGroup: true)
        processes.append(pid)
    }

    /// Waits until `name` has an owner on this bus (a peer ``launch(_:_:_:_:stdin:)`` started).
    public func waitForName(_ name: String, timeout: Int = 10) throws {
        try waitUntil("\(name) on the private bus", timeout: timeout, "owned", name)
    }

    /// The bus itself: Tests/bus.sh's exec_private_bus, so its process id is the bus's.
    private func startBus(socket: String, activation: [String: String]?) throws {
        let function = activation == nil ? "exec_private_bus" : "exec_session_bus"
        try launch(
            "dbus-daemon", "/bin/sh",
            ["-c", "bus_tests=$1; . \"$1/bus.sh\" && \(function) \"$2\"", "sh", try testsFolder(), socket],
            activation ?? [:])
    }

    private func startSilentOwner() throws {
        // Owns the name, then sleeps without a main loop: calls queue up and are never answered.
        let script = """
            import dbus, time
            bus = dbus.bus.BusConnection('\(address)')
            bus.request_name('org.freedesktop.secrets')
            time.sleep(600)
            """
        try launch("silent-owner", "/usr/bin/python3", ["-c", script])
        try waitForName("org.freedesktop.secrets")
    }

    private func startKeyring(password: String) throws {
        let home = directory.appendingPathComponent("home")
        let runtime = directory.appendingPathComponent("runtime")
        for folder in [home, runtime] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        }
        var environment = self.environment
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        try launch(
            "gnome-keyring", findExecutable("gnome-keyring-daemon")!,
            ["--foreground", "--unlock", "--components=secrets"],
            environment, stdin: Array(password.utf8))
        try waitForName("org.freedesktop.secrets")
    }

    private func testsFolder() throws -> String {
        guard let root = packageRoot() else {
            throw PrivateBusError(message: "cannot find the package root for Tests/bus.sh")
        }
        return root.appendingPathComponent("Tests").path
    }

    /// Runs Tests/bus.sh's wait_until with `check` on this bus (the tests' one wait loop).
    private func waitUntil(_ what: String, timeout: Int = 10, _ check: String...) throws {
        let loop = "bus_tests=$1; shift; . \"$bus_tests/bus.sh\" && wait_until \"$@\""
        let waited = try runTool(
            "/bin/sh", ["-c", loop, "sh", try testsFolder(), String(timeout)] + check,
            environment: inheritedEnvironment(adding: environment), timeout: Double(timeout + 10), ownGroup: true)
        if waited.status == 0 { return }
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let details = logs.filter { $0.hasSuffix(".err") }.compactMap { name in
            (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)).map { "\(name): \($0)" }
        }
        throw PrivateBusError(
            message: "\(what) did not start within \(timeout) s. \(details.joined(separator: " "))")
    }

    public struct PrivateBusError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
