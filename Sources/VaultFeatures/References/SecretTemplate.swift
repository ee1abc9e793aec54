public import VaultSecureBytes
public import VaultStorage

/// Templates for `vault inject`: text in which each `{{ vault://SERVICE/NAME }}` stands for a
/// secret's value.
///
/// Blanks (spaces, tabs) inside the braces are optional. A `{{` that is not followed by a
/// reference is copied as it is, so templates of other tools pass through; a reference whose
/// `}}` is missing is an error.
public enum SecretTemplate {
    /// One placeholder: the byte range it covers in the template, what it refers to, its line.
    struct Placeholder {
        var range: Range<Int>
        var reference: SecretReference
        var line: Int
    }

    /// The template with every placeholder replaced by its secret's value. All references are
    /// resolved before anything is returned: a missing one is `.notFound`, an expired one
    /// `.expired` (unless `allowExpired`), each naming its line and reference, never a value.
    public static func render(_ template: [UInt8], vault: Vault, allowExpired: Bool = false) throws(VaultError)
        -> SecureBytes
    {
        let placeholders = try scan(template)
        let values = try vault.resolve(
            placeholders.map { ($0.reference, "template line \($0.line)") }, allowExpired: allowExpired)
        var output = SecureBytes()
        output.reserveCapacity(template.count)
        var copied = 0
        for placeholder in placeholders {
            output += template[copied..<placeholder.range.lowerBound]
            output += values[placeholder.reference]!
            copied = placeholder.range.upperBound
        }
        output += template[copied...]
        return output
    }

    /// Finds the placeholders, in order.
    static func scan(_ template: [UInt8]) throws(VaultError) -> [Placeholder] {
        var placeholders: [Placeholder] = []
        var line = 1
        var index = 0
        let open = Array("{{".utf8)
        let close = Array("}}".utf8)
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while index < template.count {
            if template[index] == 0x0A { line += 1 }
            guard template[index...].starts(with: open) else {
                index += 1
                continue
            }
            var cursor = index + 2
            while cursor < template.count, isBlank(template[cursor]) { cursor += 1 }
            guard SecretReference.looksLikeReference(template[cursor...]) else {
                index += 2
                continue
            }
            let start = cursor
            while cursor < template.count, template[cursor] > 0x20, template[cursor] != UInt8(ascii: "}") {
                cursor += 1
            }
            let text = String(decoding: template[start..<cursor], as: UTF8.self)
            while cursor < template.count, isBlank(template[cursor]) { cursor += 1 }
            guard template[cursor...].starts(with: close) else {
                throw VaultError(.usage, "template line \(line): '{{ \(text)' is not closed with '}}'")
            }
            let reference: SecretReference
            do throws(VaultError) {
                reference = try SecretReference(parsing: text)
            } catch {
                throw error.withMessage("template line \(line): \(error.message)")
            }
            placeholders.append(Placeholder(range: index..<(cursor + 2), reference: reference, line: line))
            index = cursor + 2
        }
        return placeholders
    }
}
