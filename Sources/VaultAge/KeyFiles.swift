extension Age {
    /// Parses an age identity file (lines of AGE-SECRET-KEY-1..., `#` comments, blank lines).
    ///
    /// Unsupported key types (plugin, post-quantum, SSH) are `.invalidKey` errors naming the line
    /// number; messages never quote the line, which may hold a secret.
    public static func parseIdentityFile(_ text: String) throws(AgeError) -> [X25519Identity] {
        try parseIdentityFile(text, plugins: nil).map { identity throws(AgeError) in
            guard case .x25519(let key) = identity else { throw .invalidKey("plugin identities are not supported") }
            return key
        }
    }

    /// Parses an age identity file whose `AGE-PLUGIN-NAME-1...` lines run plugins through `plugins`
    /// (nil: such a line is an error). Only these local lines ever decide which plugin runs.
    public static func parseIdentityFile(_ text: String, plugins: PluginHost?) throws(AgeError) -> [AgeIdentity] {
        var identities: [AgeIdentity] = []
        for (number, line) in keyLines(text) {
            if PluginIdentity.looksLikePlugin(line) {
                guard let plugins else {
                    throw .invalidKey("identity file line \(number): plugin identities are not supported")
                }
                do {
                    identities.append(.plugin(try PluginIdentity(line), host: plugins))
                } catch {
                    throw .invalidKey("identity file line \(number): \(error.message)")
                }
                continue
            }
            if line.hasPrefix("AGE-SECRET-KEY-PQ-") || line.hasPrefix("age-secret-key-pq-") {
                throw .invalidKey("identity file line \(number): post-quantum identities are not supported")
            }
            do {
                identities.append(.x25519(try X25519Identity(line)))
            } catch {
                throw .invalidKey("identity file line \(number): \(error.message)")
            }
        }
        guard !identities.isEmpty else { throw .invalidKey("identity file has no secret keys") }
        return identities
    }

    /// Parses a recipients file (age1... per line, `#` comments, blank lines), same error rules.
    public static func parseRecipientsFile(_ text: String) throws(AgeError) -> [X25519Recipient] {
        try parseRecipientsFile(text, plugins: nil).map { recipient throws(AgeError) in
            guard case .x25519(let key) = recipient else { throw .invalidKey("plugin recipients are not supported") }
            return key
        }
    }

    /// Parses a recipients file whose `age1NAME1...` lines run plugins through `plugins` (nil:
    /// such a line is an error).
    public static func parseRecipientsFile(_ text: String, plugins: PluginHost?) throws(AgeError) -> [AgeRecipient] {
        var recipients: [AgeRecipient] = []
        for (number, line) in keyLines(text) {
            if line.hasPrefix("age1pq1") {
                throw .invalidKey("recipients file line \(number): post-quantum recipients are not supported")
            }
            if line.hasPrefix("ssh-") || line.hasPrefix("ecdsa-") {
                throw .invalidKey("recipients file line \(number): SSH recipients are not supported")
            }
            do throws(AgeError) {
                if PluginRecipient.looksLikePlugin(line) {
                    guard let plugins else {
                        throw AgeError.invalidKey("plugin recipients are not supported")
                    }
                    recipients.append(.plugin(try PluginRecipient(line), host: plugins))
                } else {
                    recipients.append(.x25519(try X25519Recipient(line)))
                }
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
