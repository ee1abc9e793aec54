import Foundation
import Testing
import VaultTestSupport

/// A shell script run inside the test harness's provider scripts (Tests/with-kwallet.sh,
/// Tests/with-display.sh, ...), with VAULT_BINARY, ROOT and OUT set; the script leaves what it
/// saw in files in OUT, which ``read(_:)`` returns.
struct HarnessScript {
    let out: URL

    /// Runs `script` under `harness` (paths relative to the package root, then their arguments),
    /// with `environment` added and `unset` removed. Fails the test if the script fails.
    init(
        _ harness: [String], script: String, environment extra: [String: String] = [:], unset: [String] = [],
        timeout: Double = 300
    ) throws {
        let root = try #require(packageRoot())
        out = try makeTemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["VAULT_BINARY"] = VaultRunner.binary
        environment["OUT"] = out.path
        environment["ROOT"] = root.path
        environment.merge(extra) { $1 }
        for name in unset { environment.removeValue(forKey: name) }
        let arguments = harness.map { $0.hasPrefix("Tests/") ? root.appendingPathComponent($0).path : $0 }
        let result = try runTool(
            "/bin/sh", arguments + ["sh", "-c", script], environment: environment, timeout: timeout)
        try #require(result.status == 0, "the script failed (\(result.status)): \(result.stderr)")
    }

    /// The file `name` that the script wrote in OUT, trimmed; empty if there is none.
    func read(_ name: String) -> String {
        ((try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func cleanUp() { removeTemporaryDirectory(out) }
}
