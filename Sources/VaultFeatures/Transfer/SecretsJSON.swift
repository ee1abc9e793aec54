import FoundationEssentials
import VaultSecureBytes
import VaultStorage
import VaultSystem

/// The JSON form of `vault export --format json` and `vault import --format json` (docs/json.md).
///
/// Export writes an array with one object per secret, keys in this order:
/// `{"name": NAME, "value": TEXT, "expires": TIME|null}`, then `"kind": KIND` for a secret of a
/// kind (``SecretKind``: a one-time code seed, whose value is its otpauth URI), where a value that is not UTF-8 text
/// (invalid UTF-8 or a NUL byte) is written as `"value_base64"` (RFC 4648 base64 with padding)
/// instead of `"value"`. Import reads that array (`"expires"` optional), or an object mapping
/// names to text values (`{"NAME": "value", ...}`).
enum SecretsJSON {
    static func encode(_ records: [SecretRecord]) -> SecureBytes {
        guard !records.isEmpty else { return SecureBytes("[]\n".utf8) }
        var out = SecureBytes("[\n".utf8)
        for (index, record) in records.enumerated() {
            out += "  {\"name\":".utf8
            JSONString.append(record.name.account.utf8, to: &out)
            if record.value.isText {
                out += ",\"value\":".utf8
                JSONString.append(record.value, to: &out)
            } else {
                out += ",\"value_base64\":\"".utf8
                out.appendBase64(of: record.value)
                out += "\"".utf8
            }
            out += ",\"expires\":".utf8
            out += (record.metadata.expires.map { "\"\($0.rfc3339)\"" } ?? "null").utf8
            if let kind = record.metadata.kind {
                out += ",\"kind\":".utf8
                JSONString.append(kind.rawValue.utf8, to: &out)
            }
            out += index == records.count - 1 ? "}\n".utf8 : "},\n".utf8
        }
        out += "]\n".utf8
        return out
    }

    /// Reads either accepted shape into import items for `service`.
    static func decode(_ bytes: [UInt8], service: String) throws(VaultError) -> [ImportItem] {
        switch try JSONValue.parse(bytes) {
        case .array(let elements):
            var items: [ImportItem] = []
            for (index, element) in elements.enumerated() {
                items.append(try item(element, number: index + 1, service: service))
            }
            return items
        case .object(let members):
            var items: [ImportItem] = []
            for (index, member) in members.enumerated() {
                guard case .string(let value) = member.value else {
                    throw VaultError(.usage, "JSON entry \(index + 1) ('\(member.key)'): the value must be a string")
                }
                items.append(ImportItem(name: try name(member.key, number: index + 1, service: service), value: value))
            }
            return items
        default:
            throw VaultError(
                .usage, "the JSON input must be an array of {\"name\", \"value\"} objects or an object of names")
        }
    }

    private static func name(_ text: String, number: Int, service: String) throws(VaultError) -> SecretName {
        do {
            return try SecretName(service: service, account: text)
        } catch {
            throw VaultError(.usage, "JSON entry \(number): \(error.message)")
        }
    }

    private static func item(_ element: JSONValue, number: Int, service: String) throws(VaultError) -> ImportItem {
        func fail(_ reason: String) -> VaultError { VaultError(.usage, "JSON entry \(number): \(reason)") }
        guard case .object(let members) = element else { throw fail("expected an object") }
        var name: String?
        var value: [UInt8]?
        var expires: Timestamp??
        var kind: SecretKind?
        var kindGiven = false
        for member in members {
            switch (member.key, member.value) {
            case ("name", .string(let text)) where name == nil:
                guard let decoded = String(validating: text, as: UTF8.self) else { throw fail("the name is not UTF-8") }
                name = decoded
            case ("value", .string(let bytes)) where value == nil:
                value = bytes
            case ("value_base64", .string(let text)) where value == nil:
                guard let data = Data(base64Encoded: String(decoding: text, as: UTF8.self)) else {
                    throw fail("value_base64 is not base64 (RFC 4648, with padding)")
                }
                value = [UInt8](data)
            case ("expires", .null) where expires == nil:
                expires = .some(nil)
            case ("expires", .string(let text)) where expires == nil:
                guard let time = Timestamp(rfc3339: String(decoding: text, as: UTF8.self)) else {
                    throw fail("expires is not an RFC 3339 time like 2026-12-01T09:00:00Z")
                }
                expires = .some(time)
            case ("kind", .string(let text)) where !kindGiven:
                guard let known = SecretKind(rawValue: String(decoding: text, as: UTF8.self)), known.isOneTimeCode
                else {
                    throw fail("kind is not a kind this vault knows (totp, hotp)")
                }
                kind = known
                kindGiven = true
            case ("kind", .null) where !kindGiven:
                kindGiven = true
            case ("value", .string), ("value_base64", .string):
                throw fail("has both \"value\" and \"value_base64\"; an entry holds one of them")
            case ("name", _), ("value", _), ("value_base64", _), ("expires", _), ("kind", _):
                throw fail("'\(member.key)' is given twice or has the wrong type")
            default:
                // Not quoted: a misplaced value or key may stand where a key should.
                throw fail("an unknown key (keys are name, value or value_base64, expires, kind)")
            }
        }
        guard let name else { throw fail("no \"name\"") }
        guard let value else { throw fail("no \"value\" or \"value_base64\"") }
        let secretName = try Self.name(name, number: number, service: service)
        var item =
            expires.map { ImportItem(name: secretName, value: value, expires: $0) }
            ?? ImportItem(name: secretName, value: value)
        if let kind {
            // The value is stored as a seed of its kind: it must be one, and of that kind.
            var seed: OneTimeCodeSeed
            do {
                seed = try OneTimeCodeSeed(parsing: SecureBytes(value))
            } catch {
                throw fail(error.message)
            }
            guard seed.kind == kind else {
                throw fail("kind is \(kind), and the value is an otpauth://\(seed.kind)/ URI")
            }
            item.value = seed.uri.unprotectedArray
            item.kind = kind
        }
        return item
    }
}
