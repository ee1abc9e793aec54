import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore

/// Listing while other programs change the keyring: an item that disappears between the search
/// and the loading of its properties must not make the listing fail.
@Suite("Secret Service listing under churn", .serialized, .kwalletSessionFlakes)
struct SecretServiceListingTests {
    @Test("list(service: nil) succeeds while another process creates and deletes items")
    func listWhileDeleting() throws {
        try TestKeyring.require()
        let churn = uniqueKeyringService("churn")
        defer { TestKeyring.clean([churn]) }
        // A separate process (python3-keyring) stores and deletes items as fast as it can. Under
        // that churn kwalletd now and then drops the churner's own session ("Can't find session"),
        // a failure of that client, not of vault's listing: the churner goes on with the next
        // cycle (each call opens a new session) and reports how many cycles completed.
        let script = """
            import keyring, sys, time
            end = time.time() + float(sys.argv[2])
            i = failed = 0
            while time.time() < end:
                try:
                    keyring.set_password(sys.argv[1], "u%d" % (i % 8), "v")
                    keyring.delete_password(sys.argv[1], "u%d" % (i % 8))
                    i += 1
                except Exception as error:
                    failed += 1
                    if failed > 100:
                        raise
            print(i)
            """
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let churned = directory.appendingPathComponent("churned").path
        let errors = directory.appendingPathComponent("errors").path
        let churner = try spawnChild(
            "/usr/bin/python3", ["-c", script, churn, "6"], environment: nil, input: .null, output: churned,
            errors: errors)
        var churnerStatus: Int32?
        defer { if churnerStatus == nil { stopChild(churner) } }
        let store = try SecretServiceStore(timeout: TestKeyring.timeout)
        var listings = 0
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            _ = try store.list(service: nil)
            _ = try store.list(service: churn)
            listings += 2
        }
        #expect(listings > 10)
        churnerStatus = waitChild(churner, timeout: 60)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(churnerStatus == 0, "the churner failed: \(stderr)")
        let output = (try? String(contentsOfFile: churned, encoding: .utf8)) ?? ""
        let cycles = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(cycles > 0, "the churner created and deleted no item")
    }
}
