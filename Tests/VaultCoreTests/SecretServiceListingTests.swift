import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

/// Listing while other programs change the keyring: an item that disappears between the search
/// and the loading of its properties must not make the listing fail, and every item that stays
/// is listed. The steady items make each look at every item long, so churned items vanish
/// during the looks.
@Suite("Secret Service listing under churn", .serialized, .kwalletSessionFlakes)
struct SecretServiceListingTests {
    @Test("list(service: nil) succeeds while another process creates and deletes items")
    func listWhileDeleting() throws {
        try SessionKeyring.require()
        let churn = uniqueKeyringService("churn")
        let steady = uniqueKeyringService("steady")
        defer { SessionKeyring.clean([churn, steady]) }
        let steadyCount = 100
        // Through vault's store, which retries KWallet's failed key exchanges; a client that
        // does not would fail now and then in 100 writes.
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)
        let time = Timestamp.now()
        for index in 0..<steadyCount {
            try store.write(
                SecretRecord(
                    name: SecretName(service: steady, account: "s\(index)"), value: [118],
                    metadata: SecretMetadata(created: time, updated: time)))
        }
        // A separate process (python3-keyring) stores and deletes items as fast as it can. Under
        // that churn kwalletd now and then drops the churner's own session ("Can't find session"),
        // a failure of that client, not of vault's listing: the churner goes on with the next
        // cycle (each call opens a new session) and reports how many cycles completed.
        // It churns from its first completed cycle (it then creates the file sys.argv[2]) until
        // the file sys.argv[3] exists: the listings below wait for the one and make the other,
        // so they overlap the churn however slow the machine, with no clock to guess.
        let script = """
            import keyring, os, sys, time
            end = time.time() + 300  # only if the test never says stop
            i = failed = 0
            while not os.path.exists(sys.argv[3]) and time.time() < end:
                try:
                    keyring.set_password(sys.argv[1], "u%d" % (i % 8), "v")
                    keyring.delete_password(sys.argv[1], "u%d" % (i % 8))
                    i += 1
                    if i == 1:
                        open(sys.argv[2], "w").close()
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
        let started = directory.appendingPathComponent("started").path
        let stop = directory.appendingPathComponent("stop").path
        let churner = try spawnChild(
            "/usr/bin/python3", ["-c", script, churn, started, stop], environment: nil, input: .null, output: churned,
            errors: errors)
        var churnerStatus: Int32?
        defer { if churnerStatus == nil { stopChild(churner) } }
        while !FileManager.default.fileExists(atPath: started), churnerStatus == nil {
            churnerStatus = waitChild(churner, timeout: 0)
            if churnerStatus == nil { usleep(10_000) }
        }
        try #require(
            churnerStatus == nil,
            "the churner stopped before its first cycle: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")"
        )
        // Six listings while it churns (it churns until told to stop).
        for _ in 0..<3 {
            let all = try store.list(service: nil)
            #expect(all.filter { $0.name.service == steady }.count == steadyCount)
            _ = try store.list(service: churn)
        }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil), "cannot tell the churner to stop")
        churnerStatus = waitChild(churner, timeout: 60)
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(churnerStatus == 0, "the churner failed: \(stderr)")
        let output = (try? String(contentsOfFile: churned, encoding: .utf8)) ?? ""
        let cycles = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(cycles > 0, "the churner created and deleted no item")
    }
}
