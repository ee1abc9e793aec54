public import Foundation
public import Testing

/// The session's Secret Service, which the keyring tests of every target share.
///
/// `make test` provides it unlocked on a bus of its own: GNOME Keyring (Tests/with-keyring.sh),
/// then KeePassXC and KWallet (Tests/with-keepassxc.sh, Tests/with-kwallet.sh, which name theirs
/// in ``SecretServiceProvider``). Each target adds how it probes it: VaultCoreTests through the
/// store in process (`SessionKeyring.problem`, `require()`, `clean(_:)`), EndToEndTests through
/// the built binary (`require(_:)` with a `VaultRunner`). A test that needs another bus (none, a
/// provider that never answers, a keyring it locks) starts a ``PrivateBus`` instead.
public enum SessionKeyring {
    /// The variables a child process needs to reach the session bus and its provider.
    public static var environment: [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var result: [String: String] = [:]
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] { result[name] = inherited[name] }
        return result
    }

    /// Returns normally when `problem` (why the keyring cannot be used) is nil. Otherwise fails the
    /// test where a keyring is required and skips it elsewhere (``requireKeyringComponent``).
    public static func require(problem: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try requireKeyringComponent(problem.map { "no usable Secret Service: \($0)" }, sourceLocation: sourceLocation)
    }

    /// Deletes every item of `service` with secret-tool (best effort: clean-up must not hide a
    /// test's result).
    public static func clear(_ service: String, environment: [String: String]) {
        _ = try? runTool("/usr/bin/secret-tool", ["clear", "service", service], environment: environment)
    }

    /// How many items `service` has, duplicates included (secret-tool's search).
    public static func itemCount(_ service: String, environment: [String: String]) throws -> Int {
        let found = try runTool(
            "/usr/bin/secret-tool", ["search", "--all", "service", service], environment: environment)
        return found.stdoutText.split(separator: "\n").filter { $0.hasPrefix("[/") }.count
    }
}

/// A Secret Service service name no other run or test uses.
public func uniqueKeyringService(_ purpose: String) -> String {
    "vault-test-\(purpose)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
}
