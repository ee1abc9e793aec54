import Testing

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// Every `VAULT_*` and `BAO_*` value is typed once, in ``Configuration``: a value that does not
/// parse is kept as its usage error, and the factory throws it where the value is used.
@Suite("Configuration types every variable once")
struct ConfigurationVariablesTests {
    private static let home = ["HOME": "/home/someone"]

    private static func factory(_ environment: [String: String], options: GlobalOptions = GlobalOptions())
        -> StoreFactory
    {
        StoreFactory(options: options, environment: home.merging(environment) { $1 }, prompt: nil)
    }

    /// The error `body` throws, or nil (then the test records that it threw none).
    private static func failure(_ body: () throws(VaultError) -> Void) -> VaultError? {
        do throws(VaultError) {
            try body()
            Issue.record("no error")
            return nil
        } catch {
            return error
        }
    }

    @Test("a bad value is one usage error, kept by Configuration and thrown where it is used")
    func badValues() throws {
        let factor = Self.factory(["VAULT_SCRYPT_WORK_FACTOR": "9", "VAULT_FILE": "/x/v.age"])
        guard case .failure(let parsed) = factor.configuration.scryptWorkFactor else {
            Issue.record("VAULT_SCRYPT_WORK_FACTOR=9 parsed")
            return
        }
        #expect(parsed.code == .usage && parsed.message == "VAULT_SCRYPT_WORK_FACTOR is '9'")
        #expect(throws: parsed) { try factor.scryptWorkFactor() }
        #expect(throws: parsed) { try factor.makeFileStore() }
        #expect(try Self.factory([:]).scryptWorkFactor() == 18)

        let skew = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_REFRESH_SKEW": "-1"]).tokenSettings()
        }
        #expect(skew?.code == .usage && skew?.message == "VAULT_REFRESH_SKEW is '-1'")
        #expect(try Self.factory(["VAULT_REFRESH_SKEW": "0"]).tokenSettings().refreshSkew == 0)

        let http = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_ALLOW_HTTP": "yes"]).refreshApproval()
        }
        #expect(http?.code == .usage && http?.message == "VAULT_ALLOW_HTTP is 'yes'")
        #expect(try Self.factory(["VAULT_ALLOW_HTTP": "1"]).allowsPlainHTTP())

        let origins = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_REFRESH_ORIGINS": " https://a.example ,ftp://b.example"]).refreshApproval()
        }
        #expect(origins?.code == .usage && origins?.message.hasPrefix("VAULT_REFRESH_ORIGINS holds ") == true)

        let backend = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_BACKEND": "cloud"]).requestedBackend()
        }
        #expect(backend?.code == .usage && backend?.input == .variable("VAULT_BACKEND"))
        // The option comes first: a bad variable behind it is never looked at.
        #expect(
            try Self.factory(["VAULT_BACKEND": "cloud"], options: GlobalOptions(backend: "file")).requestedBackend()
                == .file)

        let fallback = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_FILE": "/x/v.age", "VAULT_FALLBACK": "nope"]).makeStore()
        }
        #expect(fallback?.code == .usage && fallback?.input == .variable("VAULT_FALLBACK"))
        let same = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_FILE": "/x/v.age", "VAULT_FALLBACK": "file"]).makeStore()
        }
        #expect(same?.message == "VAULT_FALLBACK=file names the current backend, not a store to move secrets from")
    }

    @Test("OpenBao: each BAO_ variable wins over its VAULT_ alias, and messages name the one set")
    func openBaoAliases() throws {
        let both = Configuration(environment: [
            "BAO_ADDR": "https://bao.example", "VAULT_ADDR": "https://vault.example", "VAULT_TOKEN": "t",
            "BAO_JWT_MOUNT": "ci/jwt//", "VAULT_SKIP_VERIFY": "Yes", "BAO_KV_MOUNT": "",
        ]).openBao
        #expect(both.address?.name == "BAO_ADDR" && both.address?.value == "https://bao.example")
        #expect(both.token?.name == "VAULT_TOKEN")
        #expect(both.jwtMount == "ci/jwt")
        #expect(both.skipVerify?.name == "VAULT_SKIP_VERIFY" && both.skipVerify?.value == true)
        // Empty counts as unset: the default.
        #expect(both.kvMount == "secret" && both.appRoleMount == "approle")
        let factory = Self.factory(["VAULT_ADDR": "https://vault.example", "BAO_SKIP_VERIFY": "0"])
        #expect(factory.openBaoWarning() == nil)
        #expect(
            Self.factory(["BAO_SKIP_VERIFY": "on"]).openBaoWarning()
                == "warning: BAO_SKIP_VERIFY is set: the OpenBao server's TLS certificate is not verified")
        let role = Self.failure { () throws(VaultError) in
            _ = try Self.factory(["VAULT_ADDR": "https://vault.example", "VAULT_ROLE_ID": "r"]).openBaoSettings()
        }
        #expect(role?.message == "VAULT_ROLE_ID is set without BAO_SECRET_ID or BAO_SECRET_ID_FILE")
    }

    @Test("a vault file's key variables: VAULT_* or VAULT_TO_*, in order, the name kept for messages")
    func keySets() throws {
        let configuration = Configuration(environment: [
            "VAULT_PASSPHRASE_FILE": "/k", "VAULT_PASSPHRASE": "p", "VAULT_TO_IDENTITY": "", "VAULT_TO_PASSPHRASE": "q",
        ])
        #expect(configuration.fileKeys.first == "VAULT_PASSPHRASE")
        #expect(configuration.destinationFileKeys.first == "VAULT_TO_PASSPHRASE")
        #expect(Configuration(environment: [:]).destinationFileKeys.first == nil)
        let factory = StoreFactory(options: GlobalOptions(), configuration: configuration, prompt: nil)
        #expect(try factory.fileKeys(.vault, path: "/x/v.age").origin == "VAULT_PASSPHRASE")
        #expect(try factory.fileKeys(.destination, path: "/x/v.age").origin == "VAULT_TO_PASSPHRASE")
    }
}
