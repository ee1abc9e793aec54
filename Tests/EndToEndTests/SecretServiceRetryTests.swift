import Foundation
import Testing
import VaultTestSupport

/// A read that the provider answers badly once is retried on a fresh session: KWallet now and
/// then sends no secret and no error, or "Can't find session". A fake Secret Service
/// (Tests/fake-secret-service.py) answers the first GetSecrets of its life that way, so each case
/// happens on every run. Its sessions are "plain": it refuses the DH algorithm as not supported,
/// and vault falls back to plain, as libsecret does.
@Suite("Secret Service: a failed read is retried on a fresh session")
struct SecretServiceRetryTests {
    @Test(
        "no secret and no error, or \"Can't find session\", once → get succeeds on a new session",
        arguments: ["empty", "no-session"])
    func retriedOnFreshSession(mode: String) throws {
        let run = try FakeSecretService.run(mode: mode, commands: FakeSecretService.vault("get", "get a"))
        defer { run.cleanUp() }
        let calls = run.read("calls").split(separator: "\n")
        #expect(run.read("get.status") == "0", "\(mode): \(run.read("get.err")) \(run.read("fake.err"))")
        #expect(run.read("get.out") == "fake value")
        #expect(calls.filter { $0 == "GetSecrets" }.count == 2, "\(calls)")
        #expect(calls.filter { $0 == "OpenSession plain" }.count == 2, "a fresh session: \(calls)")
    }
}
