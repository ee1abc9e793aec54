import Foundation
import Synchronization
import Testing
import VaultCore
import VaultSecureBytes
import VaultTestSupport

@testable import VaultFeatures
@testable import VaultStorage

/// Living tokens in process: the companion's form, token responses, and refresh on read against
/// an endpoint double that rotates refresh tokens and revokes on reuse, as real servers do.
@Suite("Living tokens")
struct LivingTokenTests {
    static let start = Timestamp(secondsSince1970: 1_800_000_000)

    /// A token endpoint that issues `access-N`/`refresh-N` and rejects any refresh token but the latest.
    final class RotatingEndpoint: TokenEndpoint {
        struct State {
            var issued = 1
            var requests: [(refreshToken: String, clientSecret: String?)] = []
        }
        let state = Mutex(State())

        func refresh(
            _ client: OAuthClientConfiguration, refreshToken: SecureBytes, clientSecret: SecureBytes?, name: SecretName
        ) throws(VaultError) -> TokenResponse {
            try state.withLock { (state) throws(VaultError) -> TokenResponse in
                state.requests.append(
                    (
                        String(decoding: refreshToken.unprotectedArray, as: UTF8.self),
                        clientSecret.map { String(decoding: $0.unprotectedArray, as: UTF8.self) }
                    ))
                guard refreshToken == Array("refresh-\(state.issued)".utf8) else {
                    throw VaultError(.cannotUnlock, "invalid_grant")
                }
                state.issued += 1
                return TokenResponse(
                    accessToken: SecureBytes("access-\(state.issued)".utf8), expiresIn: 600,
                    refreshToken: SecureBytes("refresh-\(state.issued)".utf8))
            }
        }
    }

    /// A clock the test moves.
    final class Clock: Sendable {
        let time = Mutex(start)
        func advance(_ seconds: Int64) { time.withLock { $0 = $0.adding(seconds: seconds) } }
        var now: Timestamp { time.withLock { $0 } }
    }

    /// A store without batches whose token writes can be made to fail (a crash between the two writes).
    final class FlakyStore: SecretStore {
        let inner = MemoryStore()
        var failTokenWrites = false
        var label: String { "flaky" }
        func read(_ name: SecretName) throws(VaultError) -> SecretRecord? { try inner.read(name) }
        func write(_ record: SecretRecord) throws(VaultError) {
            if failTokenWrites, !TokenCompanion.isCompanion(record.name) { throw VaultError(.other, "crashed") }
            try inner.write(record)
        }
        func delete(_ name: SecretName) throws(VaultError) -> Bool { try inner.delete(name) }
        func list(service: String?) throws(VaultError) -> [SecretEntry] { try inner.list(service: service) }
    }

    let clock = Clock()
    let endpoint = RotatingEndpoint()
    let name: SecretName
    let lockDirectory: String

    init() throws {
        name = try SecretName(service: "s", account: "gh")
        // A folder the library makes itself, inside a fresh temporary one.
        lockDirectory = try makeTemporaryDirectory(prefix: "vault-locks").appendingPathComponent("locks").path
    }

    func vault(_ store: any SecretStore, skew: Int64 = 60) -> Vault {
        let clock = self.clock
        return Vault(
            store: store, now: { clock.now },
            tokens: TokenSettings(
                refreshSkew: skew, lockDirectory: lockDirectory, storeRetryBudget: 0.3, commandEnvironment: [:],
                endpoint: endpoint, approval: RefreshApproval(directory: lockDirectory + "/approvals")))
    }

    func importToken(_ vault: Vault, refreshToken: String? = "refresh-1", secretName: String? = nil) throws {
        let client = OAuthClientConfiguration(
            tokenURL: "https://auth.example/token", clientID: "cli", clientSecretName: secretName, scope: "repo")
        let companion = TokenCompanion(
            source: .oauth(client), refreshToken: refreshToken.map { SecureBytes($0.utf8) }, lifetime: 600)
        try vault.approveRefresh(of: name, companion: companion)  // as `vault oauth import` does
        try vault.setLiving(
            name, token: SecureBytes("access-1".utf8), expires: clock.now.adding(seconds: 600), companion: companion)
    }

    func token(_ vault: Vault) throws -> String { String(decoding: try vault.get(name).value, as: UTF8.self) }

    @Test("a due token is refreshed on read; the rotated refresh token is used for the next one")
    func rotation() throws {
        let vault = vault(MemoryStore())
        try importToken(vault)
        #expect(try token(vault) == "access-1")
        clock.advance(539)
        #expect(try token(vault) == "access-1")
        clock.advance(2)  // 59 s left: within the 60 s skew
        #expect(try token(vault) == "access-2")
        for round in 3...5 {
            clock.advance(601)
            #expect(try token(vault) == "access-\(round)")
        }
        #expect(
            endpoint.state.withLock { $0.requests.map(\.refreshToken) } == [
                "refresh-1", "refresh-2", "refresh-3", "refresh-4",
            ])
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-5".utf8))
        #expect(try vault.list(service: "s").map(\.name.account) == ["gh"])
        #expect(try vault.listWithTokens(service: "s").1 == [name])
    }

    @Test("a rejected refresh token is exit 4 and leaves the store as it was; the expired token is never returned")
    func rejected() throws {
        let store = MemoryStore()
        let vault = vault(store)
        try importToken(vault, refreshToken: "refresh-old")
        clock.advance(700)
        #expect(throws: VaultError(.cannotUnlock, "invalid_grant")) { try vault.get(name) }
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-old".utf8))
        #expect(try vault.get(name, allowExpired: true).value == Array("access-1".utf8))
    }

    @Test("without a refresh token an expired OAuth token is still 'expired'")
    func noRefreshToken() throws {
        let vault = vault(MemoryStore())
        try importToken(vault, refreshToken: nil)
        clock.advance(700)
        do {
            _ = try vault.get(name)
            Issue.record("an expired token without a refresh token was returned")
        } catch {
            #expect(error.code == .expired)
        }
        #expect(try vault.listWithTokens(service: "s").1.isEmpty)
        #expect(endpoint.state.withLock { $0.requests.isEmpty })
    }

    @Test("a confidential client's secret is read from the vault and given to the endpoint")
    func clientSecret() throws {
        let vault = vault(MemoryStore())
        try vault.set(try SecretName(service: "s", account: "gh-client"), value: Array("client-secret".utf8))
        try importToken(vault, secretName: "gh-client")
        clock.advance(700)
        #expect(try token(vault) == "access-2")
        #expect(endpoint.state.withLock { $0.requests.map(\.clientSecret) } == ["client-secret"])
    }

    @Test("without batches the companion is written first: a crash before the token write loses no rotation")
    func crashBetweenWrites() throws {
        let store = FlakyStore()
        let vault = vault(store)
        try importToken(vault)
        clock.advance(700)
        store.failTokenWrites = true
        #expect(throws: VaultError(.other, "crashed")) { try vault.get(name) }
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-2".utf8))
        store.failTokenWrites = false
        #expect(try token(vault) == "access-3")
    }

    @Test("the companion survives its stored form; a damaged one is reported, not ignored")
    func companionForm() throws {
        let store = MemoryStore()
        let vault = vault(store)
        try importToken(vault, secretName: "gh-client")
        let companion = try #require(try vault.companion(of: name))
        #expect(companion.refreshToken == Array("refresh-1".utf8))
        #expect(companion.lifetime == 600)
        #expect(
            companion.source
                == .oauth(
                    OAuthClientConfiguration(
                        tokenURL: "https://auth.example/token", clientID: "cli", clientSecretName: "gh-client",
                        scope: "repo")))
        let companionName = try TokenCompanion.name(for: name)
        try store.write(
            SecretRecord(
                name: companionName, value: Array("{\"kind\":7}".utf8),
                metadata: SecretMetadata(created: Self.start, updated: Self.start)))
        do {
            _ = try vault.companion(of: name)
            Issue.record("a damaged companion was read")
        } catch {
            #expect(error.code == .damaged)
        }
    }

    @Test("token responses: RFC 6749 JSON, quoted expires_in, bare tokens; errors never quote a token")
    func responses() throws {
        let parsed = try TokenResponse(
            json: Array(
                #"{"access_token":"at","token_type":"Bearer","expires_in":"3599.5","refresh_token":"rt","scope":"a b"}"#
                    .utf8),
            origin: "test")
        #expect(parsed.accessToken == Array("at".utf8))
        #expect(parsed.expiresIn == 3599)
        #expect(parsed.refreshToken == Array("rt".utf8))
        #expect(parsed.scope == "a b")
        let bare = try TokenResponse(commandOutput: Array("  ya29.secret\n".utf8), origin: "cmd")
        #expect(bare.accessToken == Array("ya29.secret".utf8))
        #expect(bare.expiresIn == nil)
        do {
            _ = try TokenResponse(json: Array(#"{"access_token":"leak-me","expires_in":"soon"}"#.utf8), origin: "test")
            Issue.record("a bad expires_in was accepted")
        } catch {
            #expect(!error.message.contains("leak-me"))
        }
        #expect(TokenErrorResponse(json: Array(#"{"error":"invalid_grant"}"#.utf8))?.error == "invalid_grant")
        #expect(TokenErrorResponse(json: Array("<html>".utf8)) == nil)
    }
}
