import Foundation
import Testing
import VaultAge
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage
@testable import VaultSystem

/// VaultCore is a library: its errors say what happened and carry the remedy as data; the
/// command-line tool words the remedy with its flags (`Sources/vault/ErrorWording.swift`).
@Suite("Library errors carry remedies as data")
struct VaultErrorRemedyTests {
    static let epoch = Timestamp(secondsSince1970: 0)

    private static func record(_ account: String, _ value: [UInt8], expires: Timestamp? = nil) throws -> SecretRecord {
        SecretRecord(
            name: try SecretName(service: "s", account: account), value: value,
            metadata: SecretMetadata(created: epoch, updated: epoch, expires: expires))
    }

    /// Runs `body`, which must fail, and returns its error after checking it names no flag, no
    /// variable and no `vault` command.
    static func failure(_ body: () throws(VaultError) -> Void) -> VaultError? {
        do throws(VaultError) {
            try body()
        } catch {
            #expect(!error.message.contains("--"), "\(error.message)")
            #expect(!error.description.contains("'vault "), "\(error.description)")
            #expect(!error.description.contains("--"), "\(error.description)")
            #expect(!error.message.contains("VAULT_"), "\(error.message)")
            return error
        }
        Issue.record("no error was thrown")
        return nil
    }

    @Test("an expired value: allowExpired")
    func expired() throws {
        let vault = Vault(store: MemoryStore([try Self.record("old", [1], expires: Self.epoch)]))
        let error = Self.failure { () throws(VaultError) in
            _ = try vault.get(try SecretName(service: "s", account: "old"))
        }
        #expect(error?.code == .expired)
        #expect(error?.remedy == .allowExpired)
        #expect(error?.message == "'old' expired at 1970-01-01T00:00:00Z")
    }

    @Test("an import over different values: overwriteImported")
    func importConflict() throws {
        let vault = Vault(store: MemoryStore([try Self.record("a", [1])]))
        let item = ImportItem(name: try SecretName(service: "s", account: "a"), value: [2])
        let error = Self.failure { () throws(VaultError) in _ = try vault.importSecrets([item], overwrite: false) }
        #expect(error?.code == .conflict)
        #expect(error?.remedy == .overwriteImported)
    }

    @Test("a migration over different values: overwriteMigrated")
    func migrationConflict() throws {
        let source = MemoryStore([try Self.record("a", [1])])
        let destination = MemoryStore([try Self.record("a", [2])])
        let migration = Migration(from: source, to: destination, options: .init(service: "s"))
        let error = Self.failure { () throws(VaultError) in try migration.run() }
        #expect(error?.code == .conflict)
        #expect(error?.remedy == .overwriteMigrated)
    }

    @Test("a secret dotenv cannot hold: useJSONFormat")
    func dotenv() throws {
        for bad in [try Self.record("has space", [1]), try Self.record("nul", [0])] {
            let error = Self.failure { () throws(VaultError) in _ = try DotEnv.encode([bad]) }
            #expect(error?.code == .usage)
            #expect(error?.remedy == .useJSONFormat)
        }
    }

    @Test("a vault file that is not a regular file, or a link to nothing: nameRegularFile, createLinkTarget")
    func vaultFiles() throws {
        let scratch = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(scratch) }
        let directory = Self.failure { () throws(VaultError) in
            _ = try FileSystem.readRegularFile(scratch.path, limit: 1 << 20)
        }
        #expect(directory?.code == .usage)
        #expect(directory?.remedy == .nameRegularFile)

        let link = scratch.path + "/dangling.age"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "missing/vault.age")
        let dangling = Self.failure { () throws(VaultError) in _ = try FileSystem.resolvingLink(link) }
        #expect(dangling?.code == .usage)
        #expect(dangling?.remedy == .createLinkTarget)
    }

    @Test("no HOME to find the default vault file under: nameVaultFile")
    func noHome() {
        let factory = StoreFactory(options: GlobalOptions(), environment: [:], prompt: nil)
        let error = Self.failure { () throws(VaultError) in _ = try factory.filePath() }
        #expect(error?.code == .usage)
        #expect(error?.remedy == .nameVaultFile)
        #expect(error?.message == "HOME is not set")
    }

    @Test("a variable that cannot be derived, or is derived twice, or is protected: bind it explicitly")
    func environmentBindings() throws {
        let slashes = Self.failure { () throws(VaultError) in _ = try EnvironmentBinding.variableName(for: "///") }
        #expect(slashes?.remedy == .bindVariable(account: "///"))
        let vault = Vault(store: MemoryStore([try Self.record("a-b", [1]), try Self.record("a.b", [2])]))
        let twice = Self.failure { () throws(VaultError) in
            _ = try vault.environment(for: try vault.bindingsForAll(service: "s"))
        }
        #expect(twice?.remedy == .bindOneExplicitly)
        let path = EnvironmentBinding(
            variable: "PATH", name: try SecretName(service: "s", account: "path"), derived: true)
        let protected = Self.failure { () throws(VaultError) in
            try EnvironmentBinding.checkDerived([path], inherited: [])
        }
        #expect(protected?.remedy == .bindExplicitly)
    }

    @Test("the backend asked for, or a variable naming one: the input is data, not a flag")
    func backends() {
        let flag = Self.failure { () throws(VaultError) in
            _ = try StoreFactory(options: GlobalOptions(backend: "cloud"), environment: [:], prompt: nil)
                .requestedBackend()
        }
        #expect(flag?.input == .backend)
        #expect(flag?.message == "is 'cloud'")
        #expect(flag?.remedy == .useOneOf(names: "auto, file, secret-service or openbao"))
        let variable = Self.failure { () throws(VaultError) in
            _ = try StoreFactory(options: GlobalOptions(), environment: ["VAULT_BACKEND": "cloud"], prompt: nil)
                .requestedBackend()
        }
        #expect(variable?.input == .variable("VAULT_BACKEND"))
        #expect(variable?.description == "VAULT_BACKEND is 'cloud'")
    }

    @Test("a migration's stores: the source, the destination, or both named as data")
    func migrationStores() {
        let factory = StoreFactory(options: GlobalOptions(), environment: [:], prompt: nil)
        let source = Self.failure { () throws(VaultError) in _ = try factory.migrationStores(from: "cloud", to: "file")
        }
        #expect(source?.input == .migrationSource)
        #expect(source?.message == "is 'cloud'")
        #expect(source?.remedy == .useOneOf(names: "file, file:PATH, secret-service or openbao"))
        let destination = Self.failure { () throws(VaultError) in
            _ = try factory.migrationStores(from: "file", to: "secret-service:x")
        }
        #expect(destination?.input == .migrationDestination)
        #expect(destination?.message == "'secret-service' takes no ':' argument")
        let same = Self.failure { () throws(VaultError) in
            _ = try factory.migrationStores(from: "secret-service", to: "secret-service")
        }
        #expect(same?.input == .migrationStores(source: "secret-service", destination: "secret-service"))
        #expect(same?.message == "are the same store; nothing to migrate")
    }

    @Test("a recipient, a binding and a passphrase for a new file: which input, as data")
    func givenInputs() throws {
        let factory = StoreFactory(
            options: GlobalOptions(), environment: ["VAULT_TO_IDENTITY": X25519Identity.generate().encoded], prompt: nil
        )
        let secretKey = Self.failure { () throws(VaultError) in
            _ = try factory.recipients(publicKeys: ["AGE-SECRET-KEY-1X"], files: [])
        }
        #expect(secretKey?.input == .recipient(number: nil))
        #expect(secretKey?.message == "was given an age secret key")
        #expect(secretKey?.remedy == .giveAccepted(forms: "its public key (age-keygen -y)"))
        let second = Self.failure { () throws(VaultError) in
            _ = try factory.recipients(publicKeys: [X25519Identity.generate().recipient.encoded, "nope"], files: [])
        }
        #expect(second?.input == .recipient(number: 2))
        #expect(second?.message.hasPrefix("is not an age public key (age1..., ") == true)

        let binding = Self.failure { () throws(VaultError) in
            _ = try EnvironmentBinding(parsing: "1X=a", service: "s", position: 3)
        }
        #expect(binding?.input == .binding(number: 3))
        #expect(binding?.description.hasPrefix("binding number 3: the part before '='") == true)

        let scratch = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(scratch) }
        // Not through `failure`: this message names the variables a passphrase may come from, by design.
        var passphrase: VaultError?
        do throws(VaultError) {
            _ = try factory.recipientsForNewFile(.passphrase, variables: .destination, path: scratch.path + "/v.age")
            Issue.record("an identity was taken for a passphrase")
        } catch {
            passphrase = error
        }
        #expect(passphrase?.input == .passphrase)
        #expect(
            passphrase?.message == "needs VAULT_TO_PASSPHRASE, VAULT_TO_PASSPHRASE_FILE or a terminal, not an identity")
    }
}
