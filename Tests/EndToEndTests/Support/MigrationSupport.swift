import Foundation
import VaultAge
import VaultSecureBytes
import VaultTestSupport

// Helpers for the end-to-end migration tests: vault files written and read directly in the
// documented format (docs/file-format.md). The session keyring: SessionKeyring+Runner.swift.

/// One secret as a vault file stores it.
struct StoredSecret: Equatable, CustomStringConvertible {
    var value: [UInt8]
    var created: String
    var updated: String
    var expires: String?

    var description: String {
        "\(value.count) bytes, created \(created), updated \(updated), expires \(expires ?? "never")"
    }
}

/// Vault files read and written without the binary, to set up and check migrations.
enum VaultFile {
    /// A secret's key in ``read(_:identity:)``: `SERVICE<TAB>ACCOUNT`.
    static func key(_ service: String, _ account: String) -> String { "\(service)\t\(account)" }

    /// Writes a vault file holding `secrets`, encrypted to `identity`.
    static func write(_ secrets: [String: StoredSecret], to path: String, identity: X25519Identity) throws {
        var document = Array("{\"vault\":1}\n".utf8)
        for (key, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\t", maxSplits: 1).map(String.init)
            var object: [String: String] = [
                "service": parts[0], "account": parts[1], "value": Data(secret.value).base64EncodedString(),
                "created": secret.created, "updated": secret.updated,
            ]
            object["expires"] = secret.expires
            document += try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) + [0x0A]
        }
        let file = try Age.encrypt(document, to: [identity.recipient])
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    /// Every secret in a vault file, decrypted with VaultAge and parsed with Foundation's JSON as
    /// the documented format allows anyone to; empty if there is no file. The one reader of vault
    /// files in the end-to-end tests (``VaultState/read(_:identity:)`` is built on it).
    static func read(_ path: String, identity: X25519Identity) throws(VaultStateError) -> [String: StoredSecret] {
        guard let file = FileManager.default.contents(atPath: path) else { return [:] }
        let document: [UInt8]
        do {
            document = try Age.decrypt([UInt8](file), identities: [identity]).unprotectedArray
        } catch {
            throw VaultStateError(reason: "does not decrypt: \(error)")
        }
        let lines = document.split(separator: 0x0A)
        guard lines.first.map({ Array($0) }) == Array("{\"vault\":1}".utf8) else {
            throw VaultStateError(reason: "no document header")
        }
        var secrets: [String: StoredSecret] = [:]
        for line in lines.dropFirst() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let service = object["service"] as? String, let account = object["account"] as? String,
                let value = (object["value"] as? String).flatMap({ Data(base64Encoded: $0) }),
                let created = object["created"] as? String, let updated = object["updated"] as? String
            else { throw VaultStateError(reason: "a damaged record line") }
            secrets[key(service, account)] = StoredSecret(
                value: [UInt8](value), created: created, updated: updated, expires: object["expires"] as? String)
        }
        return secrets
    }

    /// `count` secrets of service `service`, every fifth binary, one of 1 MiB if `large`.
    static func samples(service: String = "vault", count: Int, large: Bool = false) -> [String: StoredSecret] {
        var secrets: [String: StoredSecret] = [:]
        for index in 0..<count {
            var value = Array("token-\(index)-\(UUID().uuidString)".utf8)
            if index % 5 == 1 { value = [0, 0xFF, 0x0A, UInt8(index & 0xFF), 0, 0x80] }
            if index % 5 == 2 { value = [] }
            if large, index == 3 { value = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) } }
            let second = String(format: "%02d", index % 60)
            secrets[key(service, "name-\(String(format: "%03d", index))")] = StoredSecret(
                value: value, created: "2026-01-02T03:04:\(second)Z", updated: "2026-02-03T04:05:\(second)Z",
                expires: index % 7 == 3 ? "2030-01-01T00:00:00Z" : nil)
        }
        return secrets
    }
}
