import Foundation
import Synchronization
import Testing
import VaultAge
import VaultCore
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultFeatures
@testable import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Refresh approvals in process: what a companion read from a store may make a reader do
/// (docs/tokens.md, "Approving refreshes"). End to end, with real stores and a listener that
/// records connections: RefreshApprovalEndToEndTests.
@Suite("Refresh approval")
struct RefreshApprovalTests {
    let clock = LivingTokenTests.Clock()
    let endpoint = LivingTokenTests.RotatingEndpoint()
    let store = MemoryStore()
    let name: SecretName
    let root: URL

    init() throws {
        name = try SecretName(service: "s", account: "deploy")
        root = try makeTemporaryDirectory(prefix: "vault-approval")
    }

    var records: String { root.appendingPathComponent("state/refresh-approvals").path }
    var commandsFile: String { root.appendingPathComponent("config/refresh-commands").path }

    func approval(origins: Set<String> = [], allowHTTP: Bool = false) -> RefreshApproval {
        RefreshApproval(directory: records, origins: origins, commandsFile: commandsFile, allowHTTP: allowHTTP)
    }

    func vault(_ approval: RefreshApproval) -> Vault {
        let clock = self.clock
        return Vault(
            store: store, now: { clock.now },
            tokens: TokenSettings(
                lockDirectory: root.path, storeRetryBudget: 0.3, commandEnvironment: [:], endpoint: endpoint,
                approval: approval))
    }

    /// An OAuth companion holding the refresh token the endpoint accepts next.
    func oauth(_ url: String = "https://auth.example/token", secret: String? = nil) -> TokenCompanion {
        let issued = endpoint.state.withLock { $0.issued }
        return TokenCompanion(
            source: .oauth(OAuthClientConfiguration(tokenURL: url, clientID: "cli", clientSecretName: secret)),
            refreshToken: SecureBytes("refresh-\(issued)".utf8), lifetime: 600)
    }

    /// Writes a companion into the store directly, as a party that can only write the store does.
    func plant(_ companion: TokenCompanion, value: String = "plain") throws {
        try Vault(store: store, now: { clock.now }).setLiving(
            name, token: SecureBytes(value.utf8), expires: clock.now.adding(seconds: 10), companion: companion)
        clock.advance(20)
    }

    var requests: Int { endpoint.state.withLock { $0.requests.count } }

    @Test("token URLs: the origin libcurl would connect to, or nothing; http only to this machine")
    func tokenURLs() {
        #expect(TokenURL("HTTPS://Auth.Example:443/oauth/token?x=1")?.origin == "https://auth.example")
        #expect(TokenURL("http://127.0.0.1:8080/token")?.origin == "http://127.0.0.1:8080")
        #expect(TokenURL("http://[::1]:80/")?.origin == "http://[::1]")
        #expect(TokenURL("http://127.0.0.1/")?.isLoopback == true)
        #expect(TokenURL("http://localhost:9/")?.isLoopback == true)
        #expect(TokenURL("http://128.0.0.1/")?.isLoopback == false)
        #expect(TokenURL("http://127.0.0.1.evil.example/")?.isLoopback == false)
        for bad in [
            "https://good.example@evil.example/token", "https://good.example:x@evil.example/", "ftp://a/",
            "https://a b/", "https://a\\@b/", "https://:443/", "https://a:0/", "https://a:65536/", "https://[::1/",
            "https://a%2eb/", "file:///etc/passwd",
        ] {
            #expect(TokenURL(bad) == nil, "\(bad)")
        }
        #expect(TokenURL(origin: "https://oauth2.example.com/")?.origin == "https://oauth2.example.com")
        #expect(TokenURL(origin: "https://oauth2.example.com/token") == nil)
        let plain = expectFailure(.usage) { try approval().checkURL("http://auth.example/token", what: "x") }
        #expect(plain?.remedy == .useHTTPS)
        #expect(throws: Never.self) { try approval(allowHTTP: true).checkURL("http://auth.example/token", what: "x") }
        #expect(throws: Never.self) { try approval().checkURL("http://127.0.0.1:9/token", what: "x") }
    }

    @Test("a planted companion refreshes nothing: exit 6, no request; the plain value stays readable")
    func planted() throws {
        try plant(oauth("https://attacker.example/token", secret: "db-password"))
        let vault = vault(approval())
        do {
            _ = try vault.get(name)
            Issue.record("a planted companion was refreshed")
        } catch {
            #expect(error.code == .damaged)
            #expect(error.remedy == .trustRefresh(account: "deploy", orListOrigin: false))
            #expect(error.message.contains("https://attacker.example"))
            #expect(!error.message.contains("/token"))
        }
        #expect(requests == 0)
        #expect(try vault.get(name, allowExpired: true).value == Array("plain".utf8))
        #expect(try vault.refreshApproval(of: name)?.isApproved == false)
    }

    @Test("approved here: refreshes; a changed URL, client or client secret is refused until trusted again")
    func recorded() throws {
        let vault = vault(approval())
        try vault.approveRefresh(of: name, companion: oauth(secret: "deploy-secret"))
        try vault.set(try SecretName(service: "s", account: "deploy-secret"), value: Array("s3".utf8))
        try plant(oauth(secret: "deploy-secret"), value: "access-1")
        #expect(try vault.refreshApproval(of: name) == .recorded)
        #expect(try vault.get(name).value == Array("access-2".utf8))
        #expect(endpoint.state.withLock { $0.requests.last?.clientSecret } == "s3")
        for changed in [
            oauth("https://auth.example/other", secret: "deploy-secret"), oauth("https://evil.example/token"),
            oauth(secret: "db-password"),
            TokenCompanion(source: .command("touch /tmp/x"), lifetime: 60),
        ] {
            try plant(changed)
            let before = requests
            expectFailure(.damaged) { try vault.get(name) }
            #expect(requests == before)
            guard case .changed? = try vault.refreshApproval(of: name) else {
                Issue.record("not reported as changed: \(changed)")
                continue
            }
        }
        try plant(oauth("https://auth.example/other", secret: "deploy-secret"), value: "access-2")
        _ = try vault.trustRefresh(of: name)
        #expect(try vault.get(name).value == Array("access-3".utf8))
    }

    @Test("VAULT_REFRESH_ORIGINS: an origin listed refreshes, with no client secret but NAME.client-secret")
    func listedOrigins() throws {
        let vault = vault(approval(origins: ["https://auth.example"]))
        try plant(oauth(), value: "access-1")
        #expect(try vault.refreshApproval(of: name) == .listedOrigin)
        #expect(try vault.get(name).value == Array("access-2".utf8))
        try vault.set(try SecretName(service: "s", account: "db-password"), value: Array("hunter2".utf8))
        try plant(oauth(secret: "db-password"), value: "access-2")
        let before = requests
        expectFailure(.damaged) { try vault.get(name) }
        #expect(requests == before)
        try vault.set(try SecretName(service: "s", account: "deploy.client-secret"), value: Array("cs".utf8))
        try plant(oauth(secret: "deploy.client-secret"), value: "access-2")
        #expect(try vault.get(name).value == Array("access-3".utf8))
        try plant(oauth("https://evil.example/token"))
        expectFailure(.damaged) { try vault.get(name) }
        #expect(requests == before + 1)
    }

    @Test("a record vault did not write itself is ignored: another mode, a symbolic link, another form")
    func foreignRecords() throws {
        let vault = vault(approval())
        try vault.approveRefresh(of: name, companion: oauth())
        let files = try FileManager.default.contentsOfDirectory(atPath: records)
        let file = records + "/" + (try #require(files.first))
        #expect(files.count == 1)
        var st = stat()
        #expect(stat(file, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(records, &st) == 0 && st.st_mode & 0o777 == 0o700)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains("deploy") && !text.contains("/token") && text.contains("https://auth.example"))
        try plant(oauth())
        #expect(try vault.refreshApproval(of: name) == .recorded)
        chmod(file, 0o644)
        #expect(try vault.refreshApproval(of: name)?.isApproved == false)
        chmod(file, 0o600)
        let copy = records + "/copy"
        try FileManager.default.moveItem(atPath: file, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: copy)
        #expect(try vault.refreshApproval(of: name)?.isApproved == false)
    }

    @Test("a refresh command runs only when recorded here or listed in a file only the user can write")
    func commands() throws {
        let marker = root.appendingPathComponent("ran").path
        let command = "touch \(marker); echo token"
        try plant(TokenCompanion(source: .command(command), lifetime: 60))
        let vault = vault(approval())
        expectFailure(.damaged) { try vault.get(name) }
        #expect(!FileManager.default.fileExists(atPath: marker))
        try FileManager.default.createDirectory(
            atPath: root.appendingPathComponent("config").path, withIntermediateDirectories: true)
        try "# approved\n\n\(command)\n".write(toFile: commandsFile, atomically: false, encoding: .utf8)
        chmod(commandsFile, 0o664)
        expectFailure(.damaged) { try vault.get(name) }
        if case .notApproved(let reason)? = try vault.refreshApproval(of: name) {
            #expect(reason.contains("may be written by group or others (mode 664)"), "\(reason)")
        } else {
            Issue.record("a group-writable command list was not reported")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
        chmod(commandsFile, 0o644)
        #expect(try vault.refreshApproval(of: name) == .listedCommand)
        #expect(try vault.get(name).value == Array("token".utf8))
        #expect(FileManager.default.fileExists(atPath: marker))
    }

    @Test("a record decides: a listed origin or command does not approve a token whose record differs")
    func recordDecides() throws {
        let vault = vault(approval(origins: ["https://tenant.example"]))
        try vault.set(try SecretName(service: "s", account: "deploy.client-secret"), value: Array("cs".utf8))
        try vault.approveRefresh(of: name, companion: oauth(secret: "deploy.client-secret"))
        let before = requests
        for changed in [
            oauth("https://tenant.example/attacker/token", secret: "deploy.client-secret"),
            oauth("https://tenant.example/token"),
        ] {
            try plant(changed)
            guard case .changed? = try vault.refreshApproval(of: name) else {
                Issue.record("a listed origin overrode the record: \(changed)")
                continue
            }
            expectFailure(.damaged) { try vault.get(name) }
        }
        try FileManager.default.createDirectory(
            atPath: root.appendingPathComponent("config").path, withIntermediateDirectories: true)
        try "echo token\n".write(toFile: commandsFile, atomically: false, encoding: .utf8)
        try plant(TokenCompanion(source: .command("echo token"), lifetime: 60))
        guard case .changed? = try vault.refreshApproval(of: name) else {
            Issue.record("a listed command overrode the record")
            return
        }
        #expect(requests == before)
    }

    @Test("VAULT_REFRESH_ORIGINS entries may pin a path prefix, matched whole segments at a time")
    func pathPrefixes() throws {
        #expect(TokenURL.listEntry("https://Login.Example/tenant-a/") == "https://login.example/tenant-a")
        #expect(TokenURL.listEntry("https://login.example/") == "https://login.example")
        #expect(TokenURL.listEntry("https://login.example:443") == "https://login.example")
        for bad in [
            "https://login.example/a?b", "https://login.example/a#b", "https://login.example/a/../b",
            "https://login.example/./a", "https://login.example/a%2fb", "https://login.example//a", "login.example",
        ] {
            #expect(TokenURL.listEntry(bad) == nil, "\(bad)")
        }
        let pinned = approval(origins: ["https://login.example/tenant-a", "https://whole.example"])
        for listed in [
            "https://login.example/tenant-a/oauth2/v2.0/token", "https://login.example/tenant-a",
            "https://whole.example/any/path",
        ] {
            #expect(pinned.lists(try #require(TokenURL(listed))), "\(listed)")
        }
        for unlisted in [
            "https://login.example/tenant-ab/token", "https://login.example/tenant-b/token",
            "https://login.example/tenant-a/../tenant-b/token", "https://login.example/tenant-a/%2e%2e/tenant-b/token",
            "https://login.example/token", "http://login.example/tenant-a/token",
        ] {
            #expect(!pinned.lists(try #require(TokenURL(unlisted))), "\(unlisted)")
        }
        let vault = vault(pinned)
        try plant(oauth("https://login.example/tenant-a/token"), value: "access-1")
        #expect(try vault.refreshApproval(of: name) == .listedOrigin)
        #expect(try vault.get(name).value == Array("access-2".utf8))
        try plant(oauth("https://login.example/tenant-b/token"))
        expectFailure(.damaged) { try vault.get(name) }
        #expect(requests == 1)
    }

    @Test("a command list that exists but cannot be opened is reported, not read as listing nothing")
    func unreadableCommandList() throws {
        try FileManager.default.createDirectory(
            atPath: root.appendingPathComponent("config").path, withIntermediateDirectories: true)
        // A link to itself: open fails with ELOOP, as it fails with EACCES or EIO elsewhere (the
        // tests run as root, whom EACCES does not stop).
        try FileManager.default.createSymbolicLink(atPath: commandsFile, withDestinationPath: commandsFile)
        try plant(TokenCompanion(source: .command("echo token"), lifetime: 60))
        guard case .notApproved(let reason)? = try vault(approval()).refreshApproval(of: name) else {
            Issue.record("an unreadable command list approved a command")
            return
        }
        #expect(reason.contains("cannot open \(commandsFile)"), "\(reason)")
        // A missing list is no failure: it lists nothing.
        try FileManager.default.removeItem(atPath: commandsFile)
        guard case .notApproved(let missing)? = try vault(approval()).refreshApproval(of: name) else {
            Issue.record("a missing command list approved a command")
            return
        }
        #expect(!missing.contains("cannot"), "\(missing)")
    }

    @Test("one store's approval does not approve another store's token of the same name")
    func perStore() throws {
        try vault(approval()).approveRefresh(of: name, companion: oauth())
        let other = Vault(
            store: FileStore(
                path: root.appendingPathComponent("v.age").path, keys: .identity(X25519Identity.generate(), origin: "t")
            ),
            tokens: TokenSettings(lockDirectory: root.path, commandEnvironment: [:], approval: approval()))
        try other.setLiving(name, token: SecureBytes("x".utf8), expires: .now(), companion: oauth())
        #expect(try other.refreshApproval(of: name)?.isApproved == false)
    }
}
