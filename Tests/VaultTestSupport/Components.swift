public import Foundation
public import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Support for tests that need an outside component: a server (OpenBao, an OAuth server, a
// registry, KeePassXC), a tool (bao, skopeo, git), or a package from the test virtual environment.
// `make test` installs every component and sets VAULT_TEST_STRICT=1, so there a missing one fails
// the test; a bare `swift test` elsewhere skips it and says why.

/// Whether a missing component fails the test (`make test`, CI) rather than skipping it.
public let testsAreStrict: Bool = {
    let environment = ProcessInfo.processInfo.environment
    return environment["CI"] == "true" || environment["VAULT_TEST_STRICT"] == "1"
}()

/// A component that is missing where it is required: fails the test that throws it.
public struct MissingComponent: Error, CustomStringConvertible {
    public var description: String
}

/// Whether a missing Secret Service fails the test: where tests are strict, and under
/// Tests/with-keyring.sh (VAULT_TEST_KEYRING=1), which provides one.
public let keyringIsRequired: Bool =
    testsAreStrict || ProcessInfo.processInfo.environment["VAULT_TEST_KEYRING"] == "1"

/// Returns normally when `reason` is nil. Otherwise the component it describes is missing: where
/// it is `required` (by default under `make test`) the test fails with the reason; elsewhere it
/// is cancelled (skipped) with it.
public func requireComponent(
    _ reason: String?, required: Bool = testsAreStrict, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    guard let reason else { return }
    if required {
        throw MissingComponent(
            description: "\(reason) (required under `make test`, which installs and starts it)")
    }
    // The console does not show a cancelled case of a parameterized test: say why here.
    if Test.Case.current?.isParameterized == true {
        FileHandle.standardError.write(Data("note: skipping a test case: \(reason)\n".utf8))
    }
    try Test.cancel("\(reason)", sourceLocation: sourceLocation)
}

/// The keyring tests' policy, for a missing keyring or a missing tool a keyring test needs: a
/// failure where a keyring is required (``keyringIsRequired``), a skip elsewhere.
public func requireKeyringComponent(_ reason: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try requireComponent(reason, required: keyringIsRequired, sourceLocation: sourceLocation)
}

/// The Python virtual environment `make test` builds (`make test-venv`): VAULT_TEST_VENV, else
/// `.build/test-venv` in the package. Its `bin/` holds the PyPI tools (bao, the OAuth server's
/// Python).
public func testVirtualEnvironment() -> String? {
    if let path = ProcessInfo.processInfo.environment["VAULT_TEST_VENV"], !path.isEmpty { return path }
    return packageRoot().map { $0.appendingPathComponent(".build/test-venv").path }
}

/// The first executable named `name` on PATH (or the given directories), or nil: the one PATH
/// lookup of the tests.
public func findExecutable(_ name: String, in directories: [String]? = nil) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in directories ?? path.split(separator: ":").map(String.init) {
        let candidate = directory + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// A TCP port on 127.0.0.1 that nothing listens on now: the kernel picks it. Servers started by the
/// tests bind to 127.0.0.1 only, on ports from here, so that parallel runs never collide.
public func freeLoopbackPort() throws -> UInt16 {
    let (socketFD, port) = try boundLoopbackSocket(listening: false)
    close(socketFD)
    return port
}

/// A TCP listener on 127.0.0.1 that never accepts: connections complete in the kernel's backlog
/// and then wait forever, like a server that hangs. Closed when released.
public final class SilentListener {
    public let port: UInt16
    private let socketFD: Int32

    public init() throws { (socketFD, port) = try boundLoopbackSocket(listening: true) }

    deinit { close(socketFD) }

    /// How many connections reached the listener since the last call: accepts (without waiting)
    /// and closes those the kernel completed, so a test can assert that nothing connected.
    public func takeConnections() -> Int {
        let flags = fcntl(socketFD, F_GETFL)
        _ = fcntl(socketFD, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(socketFD, F_SETFL, flags) }
        var count = 0
        while case let connection = accept(socketFD, nil, nil), connection >= 0 {
            close(connection)
            count += 1
        }
        return count
    }
}

/// A TCP socket bound to a port the kernel picks on 127.0.0.1, listening if asked.
private func boundLoopbackSocket(listening: Bool) throws -> (Int32, UInt16) {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { throw SpawnError(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(socketFD, generic, length) == 0 && (!listening || listen(socketFD, 16) == 0)
                && getsockname(socketFD, generic, &length) == 0
        }
    }
    guard bound else {
        let reason = String(cString: strerror(errno))
        close(socketFD)
        throw SpawnError(description: "bind 127.0.0.1:0: \(reason)")
    }
    return (socketFD, UInt16(bigEndian: address.sin_port))
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`; false at the deadline.
public func waitForLoopbackPort(_ port: UInt16, timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        close(socketFD)
        if connected { return true }
        usleep(20_000)
    }
    return false
}

/// Servers and daemons the tests start in the background. Each is registered here by PID and
/// stopped by that PID, explicitly or, for those that live as long as the test process (a server
/// shared by a whole suite, started once), when the test process exits.
public enum BackgroundProcesses {
    nonisolated(unsafe) private static var pids: [Int32] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    /// Remembers `pid` so that it is killed when the test process exits.
    public static func register(_ pid: Int32) {
        lock.lock()
        defer { lock.unlock() }
        pids.append(pid)
        if !installed {
            installed = true
            atexit { BackgroundProcesses.stopAll() }
        }
    }

    /// Stops `pid` now (SIGTERM, then SIGKILL after a few seconds) and forgets it.
    public static func stop(_ pid: Int32) {
        lock.lock()
        pids.removeAll { $0 == pid }
        lock.unlock()
        stopChild(pid)
    }

    /// Kills every registered process still running: the test process is exiting.
    public static func stopAll() {
        lock.lock()
        let remaining = pids
        pids = []
        lock.unlock()
        for pid in remaining { kill(pid, SIGKILL) }
        for pid in remaining { _ = waitChild(pid, timeout: 5) }
    }
}
