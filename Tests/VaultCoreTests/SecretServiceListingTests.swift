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
        let churn = TestKeyring.uniqueService("churn")
        defer { TestKeyring.clean([churn]) }
        // A separate process (python3-keyring) stores and deletes items as fast as it can.
        let script = """
            import keyring, sys, time
            end = time.time() + float(sys.argv[2])
            i = 0
            while time.time() < end:
                keyring.set_password(sys.argv[1], "u%d" % (i % 8), "v")
                keyring.delete_password(sys.argv[1], "u%d" % (i % 8))
                i += 1
            """
        let churner = try spawnChild("/usr/bin/python3", ["-c", script, churn, "6"], environment: nil, input: .null)
        defer { _ = waitChild(churner) }
        let store = try SecretServiceStore(timeout: TestKeyring.timeout)
        var listings = 0
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            _ = try store.list(service: nil)
            _ = try store.list(service: churn)
            listings += 2
        }
        #expect(listings > 10)
    }
}
