/// Every kind of key vault reads from text, declared once: how a recipient line, an identity line
/// or a whole identity file is recognised, parsed and spelled to people, and how its stanzas are
/// named.
///
/// Adding a kind adds a type conforming to ``AgeRecipient`` or ``AgeIdentity`` and entries here;
/// code outside VaultAge names the kinds only through ``Age/recipientSpellings``,
/// ``Age/identitySpellings`` and ``Age/readableKeyKinds``, made from these tables. Formats are
/// tried in order; the first that accepts the text parses it, so a specific prefix (`age1pq1`)
/// comes before a general one (`age1`), and the last takes whatever is left.
enum KeyKinds {
    /// A textual recipient: a cheap test on a trimmed line, then its parser.
    struct RecipientFormat: Sendable {
        /// How people write it, for messages and help: `age1pq1...`; nil for a kind refused.
        let spelling: String?
        let accepts: @Sendable (String) -> Bool
        let parse: @Sendable (String, AgePrompter) throws(AgeError) -> any AgeRecipient
    }

    /// A textual identity: one line of an identity file, or a whole file (an OpenSSH private key).
    struct IdentityFormat: Sendable {
        /// How people write it, for messages and help: `AGE-SECRET-KEY-1...`; nil for a kind refused.
        let spelling: String?
        let wholeFile: Bool
        let accepts: @Sendable (String) -> Bool
        let parse: @Sendable (String, AgePrompter) throws(AgeError) -> any AgeIdentity
    }

    static let recipients: [RecipientFormat] = [
        RecipientFormat(
            spelling: "\(HybridRecipient.hrp)1...", accepts: { $0.hasPrefix("\(HybridRecipient.hrp)1") },
            parse: { (text, _) throws(AgeError) in try HybridRecipient(text) }),
        // age.md's tagged types, for hardware keys; before the plugin rule, which would name them
        // plugins `tag` and `tagpq`.
        refused(
            prefix: "age1tag", "tagged recipients (age1tag1..., age1tagpq1..., for hardware keys) are not supported",
            remedy: .usePluginRecipient),
        // Bech32 data never contains "1", so a second "1" means a plugin name (age1yubikey1...).
        RecipientFormat(
            spelling: "age1NAME1...", accepts: { $0.hasPrefix("age1") && $0.dropFirst(4).contains("1") },
            parse: { (text, prompter) throws(AgeError) in
                guard let plugins = prompter.plugins else { throw .invalidKey("plugin recipients are not supported") }
                return try PluginRecipient(text, host: plugins)
            }),
        RecipientFormat(
            spelling: "an SSH public key (\(SSHPublicKey.ed25519), \(SSHPublicKey.rsa))",
            accepts: SSHPublicKey.looksLikeLine,
            parse: { (line, _) throws(AgeError) in try SSHKeys.recipient(line: line) }),
        // Last: anything else is read as an X25519 recipient, whose errors say what age1... needs.
        RecipientFormat(
            spelling: "\(X25519Recipient.hrp)1...", accepts: { _ in true },
            parse: { (text, _) throws(AgeError) in try X25519Recipient(text) }),
    ]

    static let identities: [IdentityFormat] = [
        IdentityFormat(
            spelling: "\(HybridIdentity.hrp.uppercased())1...", wholeFile: false,
            accepts: { $0.hasPrefix(HybridIdentity.hrp.uppercased()) || $0.hasPrefix(HybridIdentity.hrp) },
            parse: { (text, _) throws(AgeError) in try HybridIdentity(text) }),
        IdentityFormat(
            spelling: "AGE-PLUGIN-NAME-1...", wholeFile: false, accepts: { $0.hasPrefix("AGE-PLUGIN-") },
            parse: { (text, prompter) throws(AgeError) in
                guard let plugins = prompter.plugins else { throw .invalidKey("plugin identities are not supported") }
                return try PluginIdentity(text, host: plugins)
            }),
        IdentityFormat(
            spelling: "an OpenSSH private key", wholeFile: true,
            accepts: { $0 == OpenSSHPrivateKey.begin }, parse: SSHKeys.identity(text:prompter:)),
        IdentityFormat(
            spelling: nil, wholeFile: true, accepts: { $0.hasPrefix("-----BEGIN") && $0.hasSuffix("PRIVATE KEY-----") },
            parse: { (_, _) throws(AgeError) in
                throw .unsupportedKey(
                    "a PEM private key; vault reads SSH keys in OpenSSH's format only",
                    remedy: .convertSSHKeyToOpenSSHFormat)
            }),
        IdentityFormat(
            spelling: "\(X25519Identity.hrp.uppercased())1...", wholeFile: false, accepts: { _ in true },
            parse: { (text, _) throws(AgeError) in try X25519Identity(text) }),
    ]

    /// What one stanza of each readable type is called, for ``StanzaType/describe(_:)`` and
    /// ``readableKinds``, in the order messages list them.
    static let stanzaNames: [(type: StanzaType, singular: String, plural: String)] = [
        (.x25519, "age public key", "age public keys"),
        (.mlkem768x25519, "post-quantum age public key", "post-quantum age public keys"),
        (StanzaType(SSHEd25519.stanzaType), "SSH ed25519 key", "SSH ed25519 keys"),
        (StanzaType(SSHRSA.stanzaType), "SSH RSA key", "SSH RSA keys"),
        (.scrypt, "passphrase", "passphrases"),
    ]

    /// ``stanzaNames`` by type.
    static let stanzaNouns: [StanzaType: (singular: String, plural: String)] = Dictionary(
        uniqueKeysWithValues: stanzaNames.map { ($0.type, ($0.singular, $0.plural)) })

    /// The kinds of key vault opens files with, for messages: "age public keys, ... and passphrases".
    static let readableKinds = listing(stanzaNames.map(\.plural), lastJoinedBy: "and")

    /// How the recipient kinds are written, the catch-all (`age1...`) first.
    static let recipientSpellings = catchAllFirst(recipients.map(\.spelling))
    /// How the identity kinds are written, the catch-all (`AGE-SECRET-KEY-1...`) first.
    static let identitySpellings = catchAllFirst(identities.map(\.spelling))

    /// The table's spellings with its last entry, the kind a person most likely meant, first.
    private static func catchAllFirst(_ spellings: [String?]) -> [String] {
        (spellings.suffix(1) + spellings.dropLast()).compactMap { $0 }
    }

    /// "a", "a or b", "a, b or c".
    static func listing(_ items: [String], lastJoinedBy word: String) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " \(word) " + last
    }

    private static func refused(prefix: String, _ message: String, remedy: AgeError.Remedy) -> RecipientFormat {
        RecipientFormat(
            spelling: nil, accepts: { $0.hasPrefix(prefix) },
            parse: { (_, _) throws(AgeError) in throw .invalidKey(message, remedy: remedy) })
    }
}
