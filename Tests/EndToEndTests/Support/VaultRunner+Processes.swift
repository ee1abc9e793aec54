import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension VaultRunner {
    /// Starts vault without waiting for it.
    func start(_ arguments: [String], stdin: [UInt8] = [], env extra: [String: String] = [:], stdinPipe: Pipe? = nil)
        throws -> ChildProcess
    {
        try ChildProcess(
            Self.binary, arguments, environment: environment.merging(extra) { $1 }, input: stdin, stdinPipe: stdinPipe)
    }

    /// The vault file's bytes, or nil if it does not exist.
    func fileBytes(_ path: String? = nil) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: path ?? vaultFile))).map { [UInt8]($0) }
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
///
/// Swift concurrency's pool has one thread per core, and a test that blocks it in `waitUntilExit`
/// would run only two vault processes at a time on two cores; plain threads really race.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

/// A mode as `ls -l` shows it, for messages.
func modeString(_ mode: Int) -> String { String(mode, radix: 8) }

/// The permission bits of a file (nil if it is missing).
func permissions(_ path: String) -> Int? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return Int(st.st_mode & 0o7777)
}

/// Runs vault as an unprivileged user: `nobody` through setpriv when the tests run as root (the
/// binary is copied where `nobody` can reach it), else the current user.
struct Unprivileged {
    let directory: URL
    /// The program to start and the arguments that come before vault's own.
    let program: String
    let prefix: [String]
    /// The user id vault runs as.
    let uid: UInt32

    init() throws {
        directory = try makeTemporaryDirectory()
        guard geteuid() == 0 else {
            (program, prefix, uid) = (VaultRunner.binary, [], geteuid())
            return
        }
        let copy = directory.appendingPathComponent("vault").path
        try FileManager.default.copyItem(atPath: VaultRunner.binary, toPath: copy)
        chmod(directory.path, 0o755)
        chmod(copy, 0o755)
        program = "/usr/bin/setpriv"
        prefix = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", copy]
        uid = 65534
    }

    /// Whether the tests can run vault as another user here.
    static var available: Bool { geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    /// A runner for another user; where none can be made (root without setpriv), a failure
    /// under `make test` (it installs util-linux) and a skip elsewhere.
    static func make() throws -> Unprivileged {
        try requireComponent(available ? nil : "/usr/bin/setpriv is not installed (Debian package util-linux)")
        return try Unprivileged()
    }

    func cleanUp() { removeTemporaryDirectory(directory) }
}
