import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultSecretService
@testable import VaultStorage
@testable import VaultSystem

/// The remedies that the command-line tool words as a `vault` command (log in, store the client
/// secret, trust, rekey, doctor, the next get): each failure found through the library's own code
/// path, carrying its remedy as data and naming no command.
extension VaultErrorRemedyTests {
    private static let name = try! SecretName(service: "s", account: "gh")

    @Test("a refresh token the server rejects (invalid_grant): logInAgain")
    func rejectedRefreshToken() throws {
        let server = try HTTPTestServer.shared()
        let endpoint = OAuthClient(http: HTTPClient(), timeout: 10)
        let client = OAuthClientConfiguration(tokenURL: server.base + "/oauth-error/invalid_grant", clientID: "cli")
        let error = Self.failure { () throws(VaultError) in
            _ = try endpoint.refresh(client, refreshToken: SecureBytes("r".utf8), clientSecret: nil, name: Self.name)
        }
        #expect(error?.code == .cannotUnlock)
        #expect(error?.remedy == .logInAgain(account: "gh"))
        #expect(error?.message == "the token server rejected the refresh token of 'gh' (invalid_grant)")
    }

    @Test("a living token with no way to refresh it here: logIn")
    func noEndpoint() throws {
        let root = try makeTemporaryDirectory(prefix: "vault-remedy")
        defer { removeTemporaryDirectory(root) }
        let clock = LivingTokenTests.Clock()
        let vault = Vault(
            store: MemoryStore(), now: { clock.now },
            tokens: TokenSettings(
                lockDirectory: root.path, commandEnvironment: [:],
                approval: RefreshApproval(directory: root.path + "/approvals")))
        let companion = TokenCompanion(
            source: .oauth(OAuthClientConfiguration(tokenURL: "https://auth.example/token", clientID: "cli")),
            refreshToken: SecureBytes("r".utf8), lifetime: 600)
        try vault.approveRefresh(of: Self.name, companion: companion)
        try vault.setLiving(
            Self.name, token: SecureBytes("t".utf8), expires: clock.now.adding(seconds: 600), companion: companion)
        clock.advance(700)
        let error = Self.failure { () throws(VaultError) in _ = try vault.get(Self.name) }
        #expect(error?.code == .expired)
        #expect(error?.remedy == .logIn(account: "gh"))
        #expect(error?.message == "'gh' cannot be refreshed")
    }

    @Test("refresh settings vault cannot read: storeTokenAgain")
    func damagedCompanion() {
        let error = Self.failure { () throws(VaultError) in
            _ = try TokenCompanion(decoding: Array("not json".utf8), name: Self.name)
        }
        #expect(error?.code == .damaged)
        #expect(error?.remedy == .storeTokenAgain)
        #expect(error?.message == "the refresh settings of 'gh' are damaged")
    }

    @Test("a confidential client's secret missing from the vault: storeClientSecret")
    func missingClientSecret() {
        let vault = Vault(store: MemoryStore())
        let client = OAuthClientConfiguration(
            tokenURL: "https://auth.example/token", clientID: "cli", clientSecretName: "gh.client-secret")
        let error = Self.failure { () throws(VaultError) in _ = try vault.clientSecret(client, service: "s") }
        #expect(error?.code == .notFound)
        #expect(error?.remedy == .storeClientSecret(name: "gh.client-secret"))
        #expect(error?.message == "the client secret 'gh.client-secret' is not in the vault")
    }

    @Test("a refresh not approved here, or changed since: trustRefresh, listing the origin where that approves it")
    func unapprovedRefresh() throws {
        let root = try makeTemporaryDirectory(prefix: "vault-remedy")
        defer { removeTemporaryDirectory(root) }
        let store = MemoryStore()
        let approval = RefreshApproval(directory: root.path + "/approvals")
        func companion(_ url: String, secret: String? = nil) -> TokenCompanion {
            TokenCompanion(
                source: .oauth(OAuthClientConfiguration(tokenURL: url, clientID: "cli", clientSecretName: secret)),
                refreshToken: SecureBytes("r".utf8), lifetime: 600)
        }
        // Only the token's own client secret may be approved by listing the origin.
        for (secret, listable) in [(nil, true), ("gh.client-secret", true), ("db-password", false)] {
            let error = Self.failure { () throws(VaultError) in
                try approval.check(companion("https://auth.example/token", secret: secret), for: Self.name, in: store)
            }
            #expect(error?.code == .damaged)
            #expect(error?.remedy == .trustRefresh(account: "gh", orListOrigin: listable), "\(secret ?? "none")")
            #expect(error?.message.hasSuffix("; nothing was sent") == true, "\(error?.message ?? "")")
        }
        try approval.record(companion("https://auth.example/token"), for: Self.name, in: store)
        let changed = Self.failure { () throws(VaultError) in
            try approval.check(companion("https://other.example/token"), for: Self.name, in: store)
        }
        #expect(changed?.remedy == .trustRefresh(account: "gh", orListOrigin: false))
        #expect(changed?.message.contains("its refresh target changed since it was approved") == true)
    }

    @Test("a vault file whose recipients someone changed: trustHeader, on writes and before refreshes; rekey")
    func changedHeader() throws {
        let root = try makeTemporaryDirectory(prefix: "vault-remedy")
        defer { removeTemporaryDirectory(root) }
        let path = root.path + "/vault.age"
        let mine = X25519Identity.generate()
        let trust = HeaderTrust(directory: root.path + "/headers")
        let store = FileStore(path: path, keys: .identity(mine, origin: "test"), trust: trust)
        try store.create(recipients: [mine.recipient])

        let again = Self.failure { () throws(VaultError) in try store.create(recipients: [mine.recipient]) }
        #expect(again?.code == .conflict)
        #expect(again?.remedy == .rekey)
        #expect(again?.message == "a vault already exists at \(path)")

        // Someone who may replace the file encrypts it to themselves too.
        try FileManager.default.removeItem(atPath: path)
        try FileStore(path: path, keys: .identity(mine, origin: "test"))
            .create(recipients: [mine.recipient, X25519Identity.generate().recipient])
        let write = Self.failure { () throws(VaultError) in
            try store.write(
                SecretRecord(
                    name: Self.name, value: [1], metadata: SecretMetadata(created: Self.epoch, updated: Self.epoch)))
        }
        #expect(write?.code == .damaged)
        #expect(write?.remedy == .trustHeader)
        #expect(write?.message.hasSuffix("so writes stop") == true, "\(write?.message ?? "")")
        let refresh = Self.failure { () throws(VaultError) in try store.checkBeforeRefresh(of: Self.name) }
        #expect(refresh?.remedy == .trustHeader, "the refresh check lost the header's remedy")
        #expect(refresh?.message.hasPrefix("'gh' is not refreshed, nothing was sent: the recipients of") == true)
    }

    @Test("Secret Service failures vault cannot act on: diagnoseAndReport, retryOrDiagnose")
    func secretServiceFailures() {
        func map(_ domain: String, _ code: Int32, _ message: String) -> VaultError? {
            Self.failure { () throws(VaultError) in
                throw VaultError.secretService(
                    GLibError(domain: domain, code: code, message: message), step: .service, action: "reading 'x'",
                    timeout: 2.5, timedOut: false)
            }
        }
        let shape = map(GLibErrorCode.ioDomain, GLibErrorCode.ioInvalidArgument, "wrong type")
        #expect(shape?.remedy == .diagnoseAndReport(toProvider: true))
        #expect(shape?.message.hasSuffix("(wrong type)") == true, "\(shape?.message ?? "")")
        let refused = map(GLibErrorCode.dbusDomain, 36, "GDBus.Error:org.freedesktop.DBus.Error.InvalidArgs: no")
        #expect(refused?.remedy == .diagnoseAndReport(toProvider: false))
        let other = map(GLibErrorCode.dbusDomain, 9, "odd")
        #expect(other?.remedy == .retryOrDiagnose)
        #expect(other?.message == "the Secret Service failed while reading 'x': odd")
    }
}
