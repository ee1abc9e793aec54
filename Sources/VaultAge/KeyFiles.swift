extension Age {
    /// Parses an age identity file (lines of AGE-SECRET-KEY-1... or AGE-SECRET-KEY-PQ-1..., `#`
    /// comments, blank lines).
    ///
    /// Unsupported key types (plugin, SSH) are `.invalidKey` errors naming the line number;
    /// messages never quote the line, which may hold a secret.
    public static func parseIdentityFile(_ text: String) throws(AgeError) -> [AgeIdentity] {
        var identities: [AgeIdentity] = []
        for (number, line) in keyLines(text) {
            if line.hasPrefix("AGE-PLUGIN-") {
                throw .invalidKey("identity file line \(number): plugin identities are not supported")
            }
            do {
                identities.append(try AgeIdentity(parsing: line))
            } catch {
                throw .invalidKey("identity file line \(number): \(error.message)")
            }
        }
        guard !identities.isEmpty else { throw .invalidKey("identity file has no secret keys") }
        return identities
    }

    /// Parses a recipients file (age1... or age1pq1... per line, `#` comments, blank lines), same
    /// error rules.
    public static func parseRecipientsFile(_ text: String) throws(AgeError) -> [AgeRecipient] {
        var recipients: [AgeRecipient] = []
        for (number, line) in keyLines(text) {
            if line.hasPrefix("ssh-") || line.hasPrefix("ecdsa-") {
                throw .invalidKey("recipients file line \(number): SSH recipients are not supported")
            }
            do {
                recipients.append(try AgeRecipient(parsing: line))
            } catch {
                throw .invalidKey("recipients file line \(number): \(error.message)")
            }
        }
        guard !recipients.isEmpty else { throw .invalidKey("recipients file has no recipients") }
        return recipients
    }

    /// The non-blank, non-comment lines with their 1-based numbers, trimmed of surrounding whitespace.
    ///
    /// A plain loop over the UTF-8 bytes: the lazy `split`/`drop(while:)`/`reversed()` chain it
    /// replaces instantiated generic types at run time and cost more than the X25519 unwrap.
    private static func keyLines(_ text: String) -> [(number: Int, line: String)] {
        var lines: [(number: Int, line: String)] = []
        var text = text
        text.withUTF8 { bytes in
            let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
            var number = 0
            var start = 0
            // Split on LF bytes: as Characters, CRLF is a single "\r\n" that never equals "\n".
            while start <= bytes.count {
                number += 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var first = start
                var last = end
                while first < last, isSpace(bytes[first]) { first += 1 }
                while last > first, isSpace(bytes[last - 1]) { last -= 1 }
                if first < last, bytes[first] != UInt8(ascii: "#") {
                    let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self)
                    lines.append((number, line))
                }
                start = end + 1
            }
        }
        return lines
    }
}
