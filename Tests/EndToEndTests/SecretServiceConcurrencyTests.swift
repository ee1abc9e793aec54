import Foundation
import Synchronization
import Testing
import VaultTestSupport

/// Several clients of vault's provider at once, and CLI writes on the same file meanwhile: the
/// file's lock serialises them, and no write is lost.
@Suite("secret-service serve: 8 clients at once plus CLI writes")
struct SecretServiceConcurrencyTests {
    static let clients = 8
    static let itemsPerClient = 4

    @Test("8 secret-tool clients storing at once, and vault set on the same file: every item and secret is there")
    func nothingLost() throws {
        let served = try ServedVault()
        let failures = Mutex<[String]>([])
        let vault = served.vault.runner
        let clientEnvironment = served.clientEnvironment
        let secretTool = try #require(findExecutable("secret-tool"))
        onThreads(Self.clients * 2) { index in
            do {
                if index < Self.clients {
                    for item in 0..<Self.itemsPerClient {
                        let stored = try runTool(
                            secretTool,
                            ["store", "--label=c\(index)-\(item)", "client", "\(index)", "item", "\(item)"],
                            input: Array("value \(index)-\(item)".utf8), environment: clientEnvironment, timeout: 60,
                            ownGroup: true)
                        if stored.status != 0 {
                            failures.withLock { $0.append("client \(index) item \(item): \(stored.stderr)") }
                        }
                    }
                } else {
                    let set = try vault.run(["set", "cli-\(index)"], stdin: Array("cli \(index)".utf8))
                    if set.status != 0 { failures.withLock { $0.append("vault set cli-\(index): \(set.stderr)") } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed) \(served.providerLog)")
        for index in 0..<Self.clients {
            for item in 0..<Self.itemsPerClient {
                let looked = try served.secretTool(["lookup", "client", "\(index)", "item", "\(item)"])
                #expect(looked.stdoutText == "value \(index)-\(item)", "client \(index) item \(item): \(looked.stderr)")
            }
        }
        let contents = try VaultFile.read(vault.vaultFile, identity: served.vault.identity)
        #expect(
            contents.keys.filter { $0.hasPrefix("org.freedesktop.secrets\ti/") }.count == Self.clients
                * Self.itemsPerClient)
        for index in Self.clients..<(Self.clients * 2) {
            #expect(contents["vault\tcli-\(index)"]?.value == Array("cli \(index)".utf8), "cli-\(index)")
        }
    }
}
