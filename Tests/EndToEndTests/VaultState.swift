import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// What a vault file holds, read without the binary under test: decrypted with VaultAge and
/// parsed with Foundation's JSON, as the documented format allows anyone to.
typealias VaultContents = [String: [UInt8]]

enum VaultState {
    /// The vault file's secrets (account → value) or an error saying why it cannot be read.
    static func read(_ path: String, identity: X25519Identity) -> Result<VaultContents, VaultStateError> {
        guard let data = FileManager.default.contents(atPath: path) else { return .success([:]) }
        let plaintext: [UInt8]
        do {
            plaintext = try Age.decrypt([UInt8](data), identities: [.x25519(identity)])
        } catch {
            return .failure(VaultStateError(reason: "does not decrypt: \(error)"))
        }
        var contents: VaultContents = [:]
        let lines = plaintext.split(separator: 0x0A)
        guard lines.first.map({ Array($0) }) == Array("{\"vault\":1}".utf8) else {
            return .failure(VaultStateError(reason: "no document header"))
        }
        for line in lines.dropFirst() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let account = object["account"] as? String, let value = object["value"] as? String,
                let bytes = Data(base64Encoded: value)
            else { return .failure(VaultStateError(reason: "a damaged record line")) }
            contents[account] = [UInt8](bytes)
        }
        return .success(contents)
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
