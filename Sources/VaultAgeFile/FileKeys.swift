public import VaultAge
public import VaultSecureBytes
public import VaultStorage

/// The key material of a file vault, asked for only when it is needed.
///
/// A `get` of a vault file that does not exist never asks for a passphrase; a `set` that
/// creates the file asks for the recipients instead of the identities. The glue factory builds
/// these closures from the environment and the terminal; tests pass fixed keys.
public struct FileKeys {
    /// The identities that may open an existing file.
    public var identities: () throws(VaultError) -> [any AgeIdentity]
    /// The recipients a new file is encrypted to.
    public var recipientsForNewFile: () throws(VaultError) -> [any AgeRecipient]
    /// Where the identities come from (`VAULT_PASSPHRASE`, `the prompt`), for error messages.
    public var origin: String
    /// Whether what the closures returned so far needed a person: a passphrase typed at the
    /// terminal (later an encrypted key's passphrase, a hardware key's PIN or touch). Only such a
    /// key is cached implicitly (``FileKeyCache``); one from the environment or a plain key file
    /// is cached only by an explicit `vault unlock`. Asked after the closures have run.
    public var neededPerson: () -> Bool

    public init(
        origin: String,
        identities: @escaping () throws(VaultError) -> [any AgeIdentity],
        recipientsForNewFile: @escaping () throws(VaultError) -> [any AgeRecipient],
        neededPerson: @escaping () -> Bool = { false }
    ) {
        self.origin = origin
        self.identities = identities
        self.recipientsForNewFile = recipientsForNewFile
        self.neededPerson = neededPerson
    }

    /// Keys for an identity of any kind: it opens the file, and a new file is encrypted to its
    /// recipient (public key).
    public static func identity(_ identity: any AgeIdentity, origin: String) -> FileKeys {
        FileKeys(
            origin: origin, identities: { [identity] },
            recipientsForNewFile: { () throws(VaultError) in try recipients(of: [identity], origin: origin) })
    }

    /// The recipients of `identities`, for a new file; a key that cannot name its recipient is
    /// `.cannotUnlock` naming `origin`.
    package static func recipients(of identities: [any AgeIdentity], origin: String) throws(VaultError)
        -> [any AgeRecipient]
    {
        var recipients: [any AgeRecipient] = []
        for identity in identities {
            do throws(AgeError) {
                recipients.append(try identity.matchingRecipient())
            } catch {
                throw VaultError(.cannotUnlock, "\(origin): \(error.message)")
            }
        }
        // An identity file with both kinds cannot say which a new file is for.
        try refuseMixedKinds(recipients, origin: origin)
        return recipients
    }

    /// Keys for a passphrase: scrypt with `workFactor` (log2 N) for a new file.
    public static func passphrase(_ passphrase: SecureBytes, workFactor: Int, origin: String) -> FileKeys {
        FileKeys(
            origin: origin, identities: { [ScryptIdentity(passphrase: passphrase, maxWorkFactor: 22)] },
            recipientsForNewFile: { [ScryptRecipient(passphrase: passphrase, workFactor: workFactor)] })
    }

    /// age's rule for post-quantum recipients (a file is for all of them or none), as a usage
    /// error (exit 2) before anything is written.
    package static func refuseMixedKinds(_ recipients: [any AgeRecipient], origin: String?) throws(VaultError) {
        do {
            try Age.checkPostQuantumNotMixed(recipients)
        } catch {
            throw VaultError(.usage, origin.map { "\($0): \(error.message)" } ?? error.message)
        }
    }
}
