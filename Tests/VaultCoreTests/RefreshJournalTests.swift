import Foundation
import Synchronization
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The refresh journal (Features/Tokens/RefreshJournal.swift): a store write that fails after the server
/// rotated the refresh token loses nothing. Against the rotating endpoint double of
/// ``LivingTokenTests``, which rejects every refresh token but the latest, as real servers do.
@Suite("Refresh journal")
struct RefreshJournalTests {
    typealias Clock = LivingTokenTests.Clock

    /// A store whose writes fail while `failures` is above 0 (a keyring that times out, a full disk).
    final class FailingStore: SecretStore {
        let inner = MemoryStore()
        var failures = 0
        /// The remedy the failing writes' error carries.
        var remedy: VaultError.Remedy?
        var label: String { "failing" }
        func read(_ name: SecretName) throws(VaultError) -> SecretRecord? { try inner.read(name) }
        func write(_ record: SecretRecord) throws(VaultError) {
            if failures > 0 {
                failures -= 1
                throw VaultError(.unavailable, "the keyring did not answer in time", remedy: remedy)
            }
            try inner.write(record)
        }
        func delete(_ name: SecretName) throws(VaultError) -> Bool { try inner.delete(name) }
        func list(service: String?) throws(VaultError) -> [SecretEntry] { try inner.list(service: service) }
    }

    let clock = Clock()
    let endpoint = LivingTokenTests.RotatingEndpoint()
    let store = FailingStore()
    let name: SecretName
    let root: URL
    let journalDirectory: String

    init() throws {
        name = try SecretName(service: "s", account: "gh")
        root = try makeTemporaryDirectory(prefix: "vault-journal")
        // A folder the library makes itself.
        journalDirectory = root.appendingPathComponent("run/vault").path
    }

    var vault: Vault {
        let clock = self.clock
        return Vault(
            store: store, now: { clock.now },
            tokens: TokenSettings(
                lockDirectory: root.path, journalDirectory: journalDirectory, storeRetryBudget: 0.3,
                commandEnvironment: [:], endpoint: endpoint,
                approval: RefreshApproval(directory: root.appendingPathComponent("approvals").path)))
    }

    var journalPath: String { RefreshJournal(directory: journalDirectory, name: name, store: store).path }

    func mode(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o777 : nil
    }

    func login(token: String = "access-1", refreshToken: String = "refresh-1") throws {
        let client = OAuthClientConfiguration(tokenURL: "https://auth.example/token", clientID: "cli")
        let companion = TokenCompanion(
            source: .oauth(client), refreshToken: SecureBytes(refreshToken.utf8), lifetime: 600)
        try vault.approveRefresh(of: name, companion: companion)  // as `vault oauth import` does
        try vault.setLiving(
            name, token: SecureBytes(token.utf8), expires: clock.now.adding(seconds: 600), companion: companion)
    }

    func token() throws -> String { String(decoding: try vault.get(name).value, as: UTF8.self) }
    var requests: [String] { endpoint.state.withLock { $0.requests.map(\.refreshToken) } }

    /// A refresh whose store writes all fail: the answer is in the journal afterwards.
    func failedRefresh() throws {
        try login()
        clock.advance(700)
        store.failures = 100
        do {
            _ = try vault.get(name)
            Issue.record("a refresh whose store write failed succeeded")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message == "the keyring did not answer in time", "\(error.message)")
            #expect(error.remedy == .nextGetStores(account: "gh", after: store.remedy))
            #expect(!error.message.contains("access-2") && !error.message.contains("refresh-2"))
        }
        store.failures = 0
        #expect(requests == ["refresh-1"])
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-1".utf8), "the store changed")
    }

    @Test("a store write that fails after a refresh: the answer is kept (0600) and the next read stores it")
    func replayAfterFailedStore() throws {
        try failedRefresh()
        #expect(mode(journalPath) == 0o600)
        #expect(mode(journalDirectory) == 0o700)
        let kept = try #require(FileManager.default.contents(atPath: journalPath))
        #expect(kept.range(of: Data("refresh-2".utf8)) != nil, "the journal does not hold the rotated token")
        // No new request: the rotated refresh token is not lost and the old one is never reused.
        #expect(try token() == "access-2")
        #expect(requests == ["refresh-1"])
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-2".utf8))
        #expect(mode(journalPath) == nil, "the journal was not removed after the store held it")
        clock.advance(700)
        #expect(try token() == "access-3")
        #expect(requests == ["refresh-1", "refresh-2"])
    }

    @Test("the store failure's own remedy stays, before the next read stores the kept token")
    func failureRemedyKept() throws {
        store.remedy = .retryOrDiagnose
        try failedRefresh()
        #expect(try token() == "access-2")
    }

    @Test("a store write that fails once is retried within the budget; the journal is removed")
    func retriedStore() throws {
        try login()
        clock.advance(700)
        store.failures = 1
        #expect(try token() == "access-2")
        #expect(store.failures == 0)
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-2".utf8))
        #expect(mode(journalPath) == nil)
    }

    @Test("a replay that fails again keeps the journal and sends no request with the rotated-away token")
    func replayFailsAgain() throws {
        try failedRefresh()
        store.failures = 100
        expectFailure(.unavailable) { try vault.get(name) }
        #expect(requests == ["refresh-1"])
        #expect(mode(journalPath) == 0o600)
        store.failures = 0
        #expect(try token() == "access-2")
        #expect(requests == ["refresh-1"])
    }

    @Test("a journal older than the stored token is stale: removed, never stored over a newer token")
    func staleJournal() throws {
        try failedRefresh()
        let kept = try #require(FileManager.default.contents(atPath: journalPath))
        #expect(try token() == "access-2")
        // The journal comes back (a kill after the store, before its removal): the store already
        // holds its token, so it replaces nothing.
        #expect(
            FileManager.default.createFile(atPath: journalPath, contents: kept, attributes: [.posixPermissions: 0o600]))
        clock.advance(700)
        #expect(try token() == "access-3")
        #expect(mode(journalPath) == nil)
        // A new login after a failed refresh makes its journal stale too.
        #expect(
            FileManager.default.createFile(atPath: journalPath, contents: kept, attributes: [.posixPermissions: 0o600]))
        try login(token: "login-token", refreshToken: "refresh-3")
        clock.advance(700)
        #expect(try token() == "access-4")
        #expect(requests == ["refresh-1", "refresh-2", "refresh-3"])
        #expect(mode(journalPath) == nil)
    }

    @Test("rm and a plain set remove the journal with the living token")
    func forgottenWithToken() throws {
        try failedRefresh()
        try vault.remove(name)
        #expect(mode(journalPath) == nil, "rm left the journal")
        try login(refreshToken: "refresh-2")
        clock.advance(700)
        store.failures = 100
        expectFailure(.unavailable) { try vault.get(name) }
        store.failures = 0
        #expect(mode(journalPath) == 0o600)
        try vault.set(name, value: Array("plain".utf8))
        #expect(mode(journalPath) == nil, "set left the journal")
        #expect(try token() == "plain")
    }

    @Test("a damaged journal is removed; one that others may read is not trusted")
    func untrustedJournal() throws {
        try failedRefresh()
        let kept = try #require(FileManager.default.contents(atPath: journalPath))
        #expect(chmod(journalPath, 0o644) == 0)
        // Not replayed: the refresh uses the stored refresh token, which the server rotated away.
        expectFailure(.cannotUnlock) { try vault.get(name) }
        #expect(requests == ["refresh-1", "refresh-1"])
        #expect(FileManager.default.createFile(atPath: journalPath, contents: kept.prefix(kept.count / 2)))
        #expect(chmod(journalPath, 0o600) == 0)
        expectFailure(.cannotUnlock) { try vault.get(name) }
        #expect(mode(journalPath) == nil, "a damaged journal was left")
    }

    @Test("the journal's folder: $XDG_RUNTIME_DIR/vault, else the state folder, never the vault file's")
    func folder() throws {
        func journalDirectory(_ environment: [String: String]) throws -> String? {
            let factory = StoreFactory(
                options: GlobalOptions(), environment: environment.merging(["VAULT_FILE": "/v/vault.age"]) { $1 },
                prompt: nil)
            return try factory.tokenSettings().journalDirectory
        }
        #expect(try journalDirectory(["XDG_RUNTIME_DIR": "/run/user/1", "HOME": "/h"]) == "/run/user/1/vault")
        #expect(try journalDirectory(["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/vault")
        #expect(try journalDirectory(["HOME": "/h"]) == "/h/.local/state/vault")
        #expect(try journalDirectory([:]) == nil)
        #expect(
            try StoreFactory(options: GlobalOptions(), environment: ["VAULT_TIMEOUT": "2.5"], prompt: nil)
                .tokenSettings().storeRetryBudget == 2.5)
    }

    @Test("the journal's form: every field survives, a truncated one is refused")
    func entryForm() throws {
        let client = OAuthClientConfiguration(tokenURL: "https://auth.example/token", clientID: "cli", scope: "repo")
        let token = SecretRecord(
            name: name, value: Array("to\u{0}k\"en\n".utf8),
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: 1), updated: Timestamp(secondsSince1970: 2),
                expires: Timestamp(secondsSince1970: 3)))
        let entry = RefreshJournal.Entry(
            replaces: "00ff", token: token,
            companion: TokenCompanion(source: .oauth(client), refreshToken: SecureBytes("r\u{7f}".utf8), lifetime: 9))
        let bytes = entry.encoded()
        let decoded = try #require(RefreshJournal.Entry(decoding: bytes, name: name))
        #expect(decoded.replaces == "00ff" && decoded.token == token && decoded.companion == entry.companion)
        #expect(RefreshJournal.Entry(decoding: Array(bytes.dropLast()), name: name) == nil)
    }
}
