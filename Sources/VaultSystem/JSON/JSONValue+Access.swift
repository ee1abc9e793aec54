package import VaultSecureBytes

/// Writing JSON and reading members: what HTTP request and response bodies need on top of the
/// parser in JSONValue.swift.
extension JSONValue {
    /// The member `key` of an object, or nil (also for anything that is not an object).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A string's bytes, or nil.
    package var stringBytes: [UInt8]? {
        guard case .string(let bytes) = self else { return nil }
        return bytes
    }

    /// A string as text, or nil.
    package var string: String? { stringBytes.map { String(decoding: $0, as: UTF8.self) } }

    /// A number that is a whole number, or nil.
    package var integer: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text)
    }

    /// A boolean, or nil.
    package var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// An object with string members, from pairs.
    package static func object(strings pairs: [(String, String)]) -> JSONValue {
        .object(pairs.map { ($0.0, .string(Array($0.1.utf8))) })
    }

    /// Compact JSON text (no spaces), in secret bytes (a request body may hold a secret's value).
    /// Strings are written byte for byte with the escapes of ``JSONString/append(_:to:)``.
    package func encoded() -> SecureBytes {
        var out = SecureBytes()
        append(to: &out)
        return out
    }

    private func append(to out: inout SecureBytes) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .number(let text): out += text.utf8
        case .string(let bytes): JSONString.append(bytes, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(member.key.utf8, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
