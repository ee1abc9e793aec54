/// A recipients file, parsed: the recipients, and the lines skipped with why.
public struct AgeRecipientsFile: Sendable {
    /// One line left out: a key of a kind vault recognises but cannot use.
    public struct Skipped: Sendable, Equatable {
        /// The 1-based line number.
        public var line: Int
        /// Why, naming the key's type and never the key.
        public var reason: String
    }

    /// The recipients, in file order.
    public var recipients: [any AgeRecipient]
    /// The lines left out, in file order; a caller should say so (never drop one silently).
    public var skipped: [Skipped]
}

extension Age {
    /// Parses one recipient (`age1...`, and the other kinds in `KeyKinds`).
    ///
    /// Messages never quote the text, which may be a secret key given by mistake.
    /// `prompter` starts plugins (`age1NAME1...`); without its ``AgePrompter/plugins`` they are refused.
    public static func parseRecipient(_ text: String, prompter: AgePrompter = .nobody) throws(AgeError)
        -> any AgeRecipient
    {
        let format =
            KeyKinds.recipients.first { $0.accepts(text) } ?? KeyKinds.recipients[KeyKinds.recipients.count - 1]
        return try format.parse(text, prompter)
    }

    /// Parses a recipients file: one recipient per line, `#` comments, blank lines.
    ///
    /// A key of a kind vault recognises but cannot use (`.unsupportedKey`) is skipped and listed
    /// in ``AgeRecipientsFile/skipped``, as age does; any other bad line is an `.invalidKey` error
    /// naming its line number. A file left with no recipient is `.invalidKey`.
    public static func parseRecipientsFile(_ text: String, prompter: AgePrompter = .nobody) throws(AgeError)
        -> AgeRecipientsFile
    {
        var file = AgeRecipientsFile(recipients: [], skipped: [])
        for (number, line) in keyLines(text) {
            do {
                file.recipients.append(try parseRecipient(line, prompter: prompter))
            } catch {
                guard error.kind == .unsupportedKey else {
                    throw .invalidKey("recipients file line \(number): \(error.message)")
                }
                file.skipped.append(AgeRecipientsFile.Skipped(line: number, reason: error.message))
            }
        }
        guard !file.recipients.isEmpty else {
            throw .invalidKey(
                file.skipped.isEmpty
                    ? "recipients file has no recipients"
                    : "recipients file has no usable recipients (\(file.skipped.count) unsupported key(s) skipped)")
        }
        return file
    }

    /// Parses identities: an identity file (one key per line, `#` comments, blank lines), or a
    /// whole-file key such as an OpenSSH private key.
    ///
    /// `prompter` is kept by identities that need a person later (an encrypted SSH key asks for
    /// its passphrase only when a stanza is addressed to it). Messages name the line number and
    /// never quote the line, which may hold a secret.
    public static func parseIdentityFile(_ text: String, prompter: AgePrompter = .nobody) throws(AgeError)
        -> [any AgeIdentity]
    {
        let lines = keyLines(text)
        if let first = lines.first?.line,
            let format = KeyKinds.identities.first(where: { $0.wholeFile && $0.accepts(first) })
        {
            return [try format.parse(text, prompter)]
        }
        var identities: [any AgeIdentity] = []
        for (number, line) in lines {
            let format =
                KeyKinds.identities.first { !$0.wholeFile && $0.accepts(line) }
                ?? KeyKinds.identities[KeyKinds.identities.count - 1]
            do {
                identities.append(try format.parse(line, prompter))
            } catch {
                throw AgeError(kind: error.kind, message: "identity file line \(number): \(error.message)")
            }
        }
        guard !identities.isEmpty else { throw .invalidKey("identity file has no secret keys") }
        return identities
    }

    /// The non-blank, non-comment lines with their 1-based numbers, trimmed of surrounding whitespace.
    ///
    /// A plain loop over the UTF-8 bytes: the lazy `split`/`drop(while:)`/`reversed()` chain it
    /// replaces instantiated generic types at run time and cost more than the X25519 unwrap.
    static func keyLines(_ text: String) -> [(number: Int, line: String)] {
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

extension Age {
    /// The kinds of key vault opens files with, for messages: "age public keys, ... and passphrases".
    public static var readableKeyKinds: String { KeyKinds.readableKinds }

    /// Every way of writing a recipient that ``parseRecipient(_:prompter:)`` reads, for messages
    /// and help: `age1...`, `age1pq1...`, a plugin's, an SSH public key line.
    public static var recipientSpellings: [String] { KeyKinds.recipientSpellings }

    /// Every kind of identity that ``parseIdentityFile(_:prompter:)`` reads, as people write it,
    /// for messages and help: `AGE-SECRET-KEY-1...`, a plugin's, an OpenSSH private key...
    public static var identitySpellings: [String] { KeyKinds.identitySpellings }

    /// `spellings` as one phrase: "a, b or c".
    public static func either(_ spellings: [String]) -> String { KeyKinds.listing(spellings, lastJoinedBy: "or") }
}
