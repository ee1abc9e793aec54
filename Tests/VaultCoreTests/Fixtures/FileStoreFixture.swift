import Foundation
import VaultAge
import VaultCore
import VaultSecureBytes
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultStorage

extension StoreFixture {
    /// A file store in a fresh temporary directory, unlocked by an X25519 identity.
    static let fileWithIdentity = StoreFixture(description: "file (identity)", service: "contract") {
        let identity = X25519Identity.generate()
        return try temporaryFileStore(keys: .identity(identity, origin: "test identity"))
    }

    /// A file store unlocked by a passphrase (scrypt at a low work factor to keep tests quick).
    static let fileWithPassphrase = StoreFixture(description: "file (passphrase)", service: "contract") {
        try temporaryFileStore(
            keys: .passphrase(SecureBytes("test passphrase".utf8), workFactor: 10, origin: "test passphrase"))
    }

    static func temporaryFileStore(keys: FileKeys) throws -> (any SecretStore, @Sendable () -> Void) {
        let directory = try makeTemporaryDirectory(prefix: "vault-store")
        let store = FileStore(path: directory.appendingPathComponent("nested/vault.age").path, keys: keys)
        return (store, { removeTemporaryDirectory(directory) })
    }
}
