import Foundation
import Testing
import VaultTestSupport

/// The session keyring for end-to-end tests of the secret-service backend: probed through the
/// built binary, as the commands under test will see it.
extension SessionKeyring {
    /// Gives `vault` the session bus if a Secret Service answers there. Otherwise fails the test
    /// where a keyring is required (`keyringIsRequired`: make test, Tests/with-keyring.sh) and
    /// skips it elsewhere.
    static func require(_ vault: inout VaultRunner, sourceLocation: SourceLocation = #_sourceLocation) throws {
        vault.environment.merge(environment) { $1 }
        let probe = try vault.run(["--backend", "secret-service", "ls", "--service", "vault-e2e-probe"])
        guard probe.status != 0 else { return }
        try require(
            problem: probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines), sourceLocation: sourceLocation)
    }

    /// Deletes every item of the service (best effort).
    static func clear(_ service: String, _ vault: VaultRunner) { clear(service, environment: vault.environment) }
}
