import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// What a vault file holds (account → value), read without the binary under test (``VaultFile``).
typealias VaultContents = [String: [UInt8]]

enum VaultState {
    /// The vault file's secrets (account → value) or an error saying why it cannot be read.
    static func read(_ path: String, identity: X25519Identity) -> Result<VaultContents, VaultStateError> {
        do {
            var contents: VaultContents = [:]
            for (key, secret) in try VaultFile.read(path, identity: identity) {
                let account = key.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).last ?? ""
                contents[String(account)] = secret.value
            }
            return .success(contents)
        } catch {
            return .failure(error)
        }
    }

    /// Files in `directory` that group or others may read or write.
    static func exposedFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            let mode = permissions(directory + "/" + name) ?? 0
            return mode & 0o077 != 0 ? "\(name) (\(modeString(mode)))" : nil
        }
    }
}

struct VaultStateError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// The vault of a test: a runner with an X25519 identity, the vault file in a private directory.
struct IdentityVault {
    var runner: VaultRunner
    let identity = X25519Identity.generate()

    init() throws {
        runner = try VaultRunner()
        runner.environment["VAULT_IDENTITY"] = identity.encoded
    }

    /// Decrypts the vault file in the test process.
    func contents() -> Result<VaultContents, VaultStateError> { VaultState.read(runner.vaultFile, identity: identity) }

    /// The directory holding the vault file, its lock and any temporary file.
    var directory: String { runner.directory.path }

    func cleanUp() { runner.cleanUp() }
}
