import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A session bus of vault's own, for `vault secret-service run`: the system's dbus-daemon on a
/// socket in a private folder, whose only activation file starts this vault's provider.
///
/// Nothing outlives it: the daemon runs in a process group of its own, which ``stop()`` kills
/// (the provider the daemon activates stays in that group); the kernel kills the daemon if vault
/// itself is killed (`PR_SET_PDEATHSIG`), and the provider then loses its bus and exits. Only this
/// user can connect (the socket's folder is 0700, and the bus authenticates with EXTERNAL).
public final class PrivateSessionBus {
    /// The bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private let daemon: ChildProcess
    private let folder: String

    private init(address: String, daemon: ChildProcess, folder: String) {
        self.address = address
        self.daemon = daemon
        self.folder = folder
    }

    deinit { stop() }

    /// Starts the bus in a new folder under `parent`, with `environment` (which the provider it
    /// activates inherits: the keys that open the store) and `launch` as its one service; waits
    /// for it to listen, until `timeout` seconds have passed.
    public static func start(
        launch: ProviderLaunch, environment: [String: String], parent: String, timeout: Double
    ) throws(VaultError) -> PrivateSessionBus {
        guard let program = ProgramSearch.find("dbus-daemon", in: environment["PATH"]) else {
            throw VaultError(
                .unavailable, "no private bus can be started: \(ProgramSearch.notFound("dbus-daemon"))",
                remedy: .installProgram(name: "dbus-daemon"))
        }
        var template = Array("\(parent)/vault-bus.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw systemError("create a private folder in \(parent)", Errno.current)
        }
        let folder = String(cString: template)
        do throws(VaultError) {
            try FileSystem.makeDirectories(folder + "/services")
            try FileSystem.writeAtomically(
                Array(launch.activationFile.utf8), directory: folder + "/services", name: ProviderLaunch.fileName)
            try FileSystem.writeAtomically(Array(configuration(folder).utf8), directory: folder, name: "bus.conf")
            var daemonEnvironment = environment
            // The daemon gives the services it starts its own address; an outer bus's is not theirs.
            daemonEnvironment["DBUS_SESSION_BUS_ADDRESS"] = nil
            let daemon: ChildProcess
            do throws(Errno) {
                daemon = try ChildProcess.spawn(
                    program,
                    arguments: ProviderCommandLine.dbusDaemon(program, configuration: folder + "/bus.conf"),
                    environment: daemonEnvironment, input: .null, keepErrorOutput: false, diesWithVault: true)
            } catch {
                throw systemError("start \(program)", error)
            }
            let address = try readAddress(daemon, program: program, deadline: Deadline(seconds: timeout))
            return PrivateSessionBus(address: address, daemon: daemon, folder: folder)
        } catch {
            removeFolder(folder)
            throw error
        }
    }

    /// Runs the user's `command` on this bus and waits for it: in the foreground (vault's standard
    /// input, output, error and process group), with `environment` less vault's key variables (the
    /// provider holds the keys; the command asks it over the bus) and `DBUS_SESSION_BUS_ADDRESS`
    /// set to this bus. While it runs, vault ignores SIGINT and SIGQUIT, as a shell waiting for its
    /// job does: the terminal sends them to the whole group, and the command decides.
    public func run(_ command: [String], environment: [String: String]) throws(VaultError) -> CommandOutcome {
        var childEnvironment = StoreFactory.childEnvironment(of: environment)
        childEnvironment["DBUS_SESSION_BUS_ADDRESS"] = address
        childEnvironment["DBUS_STARTER_ADDRESS"] = nil
        childEnvironment["DBUS_STARTER_BUS_TYPE"] = nil
        let child: ChildProcess
        do throws(Errno) {
            child = try ChildProcess.spawnInForeground(command, environment: childEnvironment)
        } catch {
            return .notStarted(error)
        }
        let interrupt = signal(SIGINT, SIG_IGN)
        let quit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, interrupt)
            signal(SIGQUIT, quit)
        }
        switch child.waitToEnd() {
        case .success(let status): return .waitStatus(status)
        case .failure(let error): throw systemError("wait for \(command[0])", error)
        }
    }

    /// How the user's command ended.
    public enum CommandOutcome: Sendable {
        /// It ran; its wait status (waitpid's).
        case waitStatus(Int32)
        /// It could not be started (execvpe's errno: not found, not executable).
        case notStarted(Errno)
    }

    /// Kills the bus with the provider it started, and removes its folder.
    public func stop() {
        daemon.stop()
        Self.removeFolder(folder)
    }

    /// The first line the daemon prints: its address, once it listens.
    private static func readAddress(_ daemon: ChildProcess, program: String, deadline: Deadline) throws(VaultError)
        -> String
    {
        var line = SecureBytes()
        while !line.contains(0x0A) {
            guard let chunk = daemon.read(limit: 1024, until: deadline) else {
                daemon.stop()
                throw VaultError(.unavailable, "\(program) did not start listening in time")
            }
            guard !chunk.isEmpty, line.count < 4096 else {
                daemon.stop()
                throw VaultError(.unavailable, "\(program) stopped before it listened")
            }
            line.append(contentsOf: chunk)
        }
        let address = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
        guard address.hasPrefix("unix:") else {
            daemon.stop()
            throw VaultError(.unavailable, "\(program) printed no bus address")
        }
        return address
    }

    /// The daemon's configuration: a session bus on a socket in `folder`, EXTERNAL authentication
    /// (the connecting process's uid, which must be the daemon's), `folder/services` its only
    /// activation folder (not the system's, which would start another provider), no limits beyond
    /// dbus-daemon's own.
    private static func configuration(_ folder: String) -> String {
        let escaped = folder.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>unix:path=\(escaped)/bus</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(escaped)/services</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """
    }

    private static func removeFolder(_ folder: String) {
        for name in ["services/" + ProviderLaunch.fileName, "bus.conf", "bus"] { unlink(folder + "/" + name) }
        rmdir(folder + "/services")
        rmdir(folder)
    }
}
