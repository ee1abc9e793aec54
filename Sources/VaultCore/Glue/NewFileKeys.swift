public import VaultAge

/// What a new vault file (`vault init`) or a rekeyed one (`vault rekey`) is encrypted to: the
/// age policy of passphrase versus recipients, decided here rather than by the command line.
public enum NewFileKeys: Sendable, Equatable {
    /// A passphrase: `<prefix>PASSPHRASE`, `<prefix>PASSPHRASE_FILE` or the terminal.
    case passphrase
    /// These age public keys and the public keys in these recipients files.
    case recipients(publicKeys: [String], files: [String])
    /// The identity's public key if `<prefix>IDENTITY` or `<prefix>IDENTITY_FILE` is set, else a
    /// passphrase, as for the first `vault set`.
    case automatic
}

extension StoreFactory {
    /// The age recipients for `keys`, with key material named by the `<prefix>*` variables.
    public func recipientsForNewFile(
        _ keys: NewFileKeys, prefix: String, path: String
    ) throws(VaultError) -> [any AgeRecipient] {
        switch keys {
        case .passphrase:
            let recipients = try fileKeys(prefix: prefix, path: path).recipientsForNewFile()
            // age allows no mix of a passphrase and public keys, and an identity is not a passphrase.
            guard recipients.allSatisfy({ $0.stanzaTypes == [.scrypt] }) else {
                throw VaultError(
                    .usage, "needs \(prefix)PASSPHRASE, \(prefix)PASSPHRASE_FILE or a terminal, not an identity",
                    input: .passphrase)
            }
            return recipients
        case .recipients(let publicKeys, let files):
            return try recipients(publicKeys: publicKeys, files: files)
        case .automatic:
            return try fileKeys(prefix: prefix, path: path).recipientsForNewFile()
        }
    }
}
