import Foundation
import Testing
import VaultTestSupport

/// A provider whose reply does not have its method's signature (Tests/fake-secret-service.py's
/// malformed modes): vault checks every reply's type before it reads a child, so each is one
/// line and exit 9 (or 5), never a crash and never a GLib critical on stderr.
@Suite("Secret Service: replies of the wrong shape")
struct SecretServiceReplyShapeTests {
    @Test(
        "a reply of the wrong shape is one line and an exit code",
        arguments: [
            ("open-session-v", "OpenSession"), ("open-session-vu", "OpenSession"),
            ("get-secrets-type", "GetSecrets"), ("search-type", "SearchItems"), ("get-all-type", "GetAll"),
        ])
    func malformedReply(mode: String, method: String) throws {
        let run = try FakeSecretService.run(mode: mode, commands: FakeSecretService.vault("get", "get a"))
        defer { run.cleanUp() }
        let status = run.read("get.status")
        let errors = run.read("get.err")
        #expect(status == "9" || status == "5", "status \(status): \(errors) \(run.read("fake.err"))")
        #expect(run.read("get.out").isEmpty)
        #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        #expect(errors.hasPrefix("vault: "), "\(errors)")
        #expect(errors.contains(method) && errors.contains("wrong shape"), "\(errors)")
        // The library's remedy, in the tool's words.
        #expect(errors.hasSuffix("); run 'vault doctor' and report it to the provider"), "\(errors)")
        #expect(!errors.contains("CRITICAL") && !errors.contains("GLib"), "\(errors)")
        #expect(!errors.contains("fake value"), "\(errors)")
    }

    @Test("a write the provider acknowledges but does not keep is exit 9, not success")
    func droppedWriteIsAFailure() throws {
        let run = try FakeSecretService.run(
            mode: "drop-writes",
            commands: [
                FakeSecretService.vault("set", "set a", input: "a value the provider drops"),
                FakeSecretService.vault("get", "get a"),
            ].joined(separator: "\n"))
        defer { run.cleanUp() }
        let errors = run.read("set.err")
        #expect(run.read("set.status") == "9", "\(errors) \(run.read("fake.err"))")
        #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        #expect(errors.contains("did not store it"), "\(errors)")
        #expect(!errors.contains("a value the provider drops") && !errors.contains("fake value"), "\(errors)")
        #expect(run.read("get.out") == "fake value")
        #expect(run.read("calls").split(separator: "\n").filter { $0 == "SetSecret" }.count == 1)
    }
}
