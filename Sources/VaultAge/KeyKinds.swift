/// Every kind of key vault reads from text, declared once: how a recipient line, an identity line
/// or a whole identity file is recognised and parsed, and how its stanzas are named to people.
///
/// Adding a kind adds a type conforming to ``AgeRecipient`` or ``AgeIdentity`` and entries here;
/// nothing outside VaultAge lists the kinds. Formats are tried in order; the first that accepts
/// the text parses it, so a specific prefix (`age1pq1`) comes before a general one (`age1`).
enum KeyKinds {
    /// A textual recipient: a cheap test on a trimmed line, then its parser.
    struct RecipientFormat: Sendable {
        let accepts: @Sendable (String) -> Bool
        let parse: @Sendable (String, AgePrompter) throws(AgeError) -> any AgeRecipient
    }

    /// A textual identity: one line of an identity file, or a whole file (an OpenSSH private key).
    struct IdentityFormat: Sendable {
        let wholeFile: Bool
        let accepts: @Sendable (String) -> Bool
        let parse: @Sendable (String, AgePrompter) throws(AgeError) -> any AgeIdentity
    }

    static let recipients: [RecipientFormat] = [
        RecipientFormat(
            accepts: { $0.hasPrefix("age1pq1") }, parse: { (text, _) throws(AgeError) in try HybridRecipient(text) }),
        // age.md's tagged types, for hardware keys; before the plugin rule, which would name them
        // plugins `tag` and `tagpq`.
        refused(
            prefix: "age1tag", "tagged recipients (age1tag1..., age1tagpq1..., for hardware keys) are not supported",
            remedy: .usePluginRecipient),
        // Bech32 data never contains "1", so a second "1" means a plugin name (age1yubikey1...).
        RecipientFormat(
            accepts: { $0.hasPrefix("age1") && $0.dropFirst(4).contains("1") },
            parse: { (text, prompter) throws(AgeError) in
                guard let plugins = prompter.plugins else { throw .invalidKey("plugin recipients are not supported") }
                return try PluginRecipient(text, host: plugins)
            }),
        RecipientFormat(
            accepts: SSHPublicKey.looksLikeLine,
            parse: { (line, _) throws(AgeError) in try SSHKeys.recipient(line: line) }),
        // Last: anything else is read as an X25519 recipient, whose errors say what age1... needs.
        RecipientFormat(accepts: { _ in true }, parse: { (text, _) throws(AgeError) in try X25519Recipient(text) }),
    ]

    static let identities: [IdentityFormat] = [
        IdentityFormat(
            wholeFile: false, accepts: { $0.hasPrefix("AGE-PLUGIN-") },
            parse: { (text, prompter) throws(AgeError) in
                guard let plugins = prompter.plugins else { throw .invalidKey("plugin identities are not supported") }
                return try PluginIdentity(text, host: plugins)
            }),
        IdentityFormat(
            wholeFile: false, accepts: { $0.hasPrefix("AGE-SECRET-KEY-PQ-") || $0.hasPrefix("age-secret-key-pq-") },
            parse: { (text, _) throws(AgeError) in try HybridIdentity(text) }),
        IdentityFormat(
            wholeFile: true, accepts: { $0 == OpenSSHPrivateKey.begin }, parse: SSHKeys.identity(text:prompter:)),
        IdentityFormat(
            wholeFile: true, accepts: { $0.hasPrefix("-----BEGIN") && $0.hasSuffix("PRIVATE KEY-----") },
            parse: { (_, _) throws(AgeError) in
                throw .unsupportedKey(
                    "a PEM private key; vault reads SSH keys in OpenSSH's format only",
                    remedy: .convertSSHKeyToOpenSSHFormat)
            }),
        IdentityFormat(
            wholeFile: false, accepts: { _ in true },
            parse: { (text, _) throws(AgeError) in try X25519Identity(text) }),
    ]

    /// What one stanza of each readable type is called, for ``StanzaType/describe(_:)``.
    static let stanzaNouns: [StanzaType: (singular: String, plural: String)] = [
        .x25519: ("age public key", "age public keys"),
        .scrypt: ("passphrase", "passphrases"),
        .mlkem768x25519: ("post-quantum age public key", "post-quantum age public keys"),
        StanzaType(SSHEd25519.stanzaType): ("SSH ed25519 key", "SSH ed25519 keys"),
        StanzaType(SSHRSA.stanzaType): ("SSH RSA key", "SSH RSA keys"),
    ]

    /// The kinds of key vault opens files with, for messages.
    static let readableKinds = "age X25519 and post-quantum keys, SSH ed25519 and RSA keys, and passphrases"

    private static func refused(prefix: String, _ message: String, remedy: AgeError.Remedy) -> RecipientFormat {
        RecipientFormat(
            accepts: { $0.hasPrefix(prefix) },
            parse: { (_, _) throws(AgeError) in throw .invalidKey(message, remedy: remedy) })
    }
}
