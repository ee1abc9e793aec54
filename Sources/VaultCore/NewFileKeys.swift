public import VaultAge
import VaultAgeFile
public import VaultStorage

/// What a new vault file (`vault init`) or a rekeyed one (`vault rekey`) is encrypted to: the
/// age policy of passphrase versus recipients, decided here rather than by the command line.
public enum NewFileKeys: Sendable, Equatable {
    /// A passphrase: the set's passphrase or passphrase file variable, or the terminal.
    case passphrase
    /// These age public keys and the public keys in these recipients files.
    case recipients(publicKeys: [String], files: [String])
    /// The identity's public key if the set's identity or identity file variable is set, else a
    /// passphrase, as for the first `vault set`.
    case automatic
}

/// The recipients a new or rekeyed file is encrypted to, and what was left out on the way.
public struct NewFileRecipients: Sendable {
    /// The recipients, in the order given.
    public var recipients: [any AgeRecipient]
    /// One line per recipients-file line skipped (a key type age cannot use), naming the file,
    /// the line number and the type, never the key. The front end shows them as warnings.
    public var warnings: [String] = []

    public init(recipients: [any AgeRecipient], warnings: [String] = []) {
        self.recipients = recipients
        self.warnings = warnings
    }

    /// The recipients for people: each key's description, or a count when there are many.
    public var summary: String {
        guard recipients.count <= 3 else { return "\(recipients.count) recipients" }
        return recipients.map(\.description).joined(separator: ", ")
    }
}

extension StoreFactory {
    /// The age recipients for `keys`, with key material named by the `variables` set.
    public func recipientsForNewFile(
        _ keys: NewFileKeys, variables: FileKeySet, path: String
    ) throws(VaultError) -> NewFileRecipients {
        switch keys {
        case .passphrase:
            let recipients = try fileKeys(variables, path: path).recipientsForNewFile()
            // age allows no mix of a passphrase and public keys, and an identity is not a passphrase.
            guard recipients.allSatisfy({ $0.stanzaTypes == [.scrypt] }) else {
                let names = keyVariables(variables).names
                throw VaultError(
                    .usage, "needs \(names[2]), \(names[3]) or a terminal, not an identity", input: .passphrase)
            }
            return NewFileRecipients(recipients: recipients)
        case .recipients(let publicKeys, let files):
            return try recipients(publicKeys: publicKeys, files: files)
        case .automatic:
            return NewFileRecipients(recipients: try fileKeys(variables, path: path).recipientsForNewFile())
        }
    }
}
