public import VaultAge

/// The key material of a file vault, asked for only when it is needed.
///
/// A `get` of a vault file that does not exist never asks for a passphrase; a `set` that
/// creates the file asks for the recipients instead of the identities. The glue factory builds
/// these closures from the environment and the terminal; tests pass fixed keys.
public struct FileKeys {
    /// The identities that may open an existing file.
    public var identities: () throws(VaultError) -> [AgeIdentity]
    /// The recipients a new file is encrypted to.
    public var recipientsForNewFile: () throws(VaultError) -> [AgeRecipient]
    /// Where the identities come from (`VAULT_PASSPHRASE`, `the prompt`), for error messages.
    public var origin: String
    /// Whether what the closures returned so far needed a person: a passphrase typed at the
    /// terminal (later an encrypted key's passphrase, a hardware key's PIN or touch). Only such a
    /// key is cached implicitly (``FileKeyCache``); one from the environment or a plain key file
    /// is cached only by an explicit `vault unlock`. Asked after the closures have run.
    public var neededPerson: () -> Bool

    public init(
        origin: String,
        identities: @escaping () throws(VaultError) -> [AgeIdentity],
        recipientsForNewFile: @escaping () throws(VaultError) -> [AgeRecipient],
        neededPerson: @escaping () -> Bool = { false }
    ) {
        self.origin = origin
        self.identities = identities
        self.recipientsForNewFile = recipientsForNewFile
        self.neededPerson = neededPerson
    }

    /// Keys for an X25519 identity: it opens the file, and a new file is encrypted to it.
    public static func identity(_ identity: X25519Identity, origin: String) -> FileKeys {
        FileKeys(
            origin: origin, identities: { [.x25519(identity)] },
            recipientsForNewFile: { [.x25519(identity.recipient)] })
    }

    /// Keys for a passphrase: scrypt with `workFactor` (log2 N) for a new file.
    public static func passphrase(_ passphrase: SecureBytes, workFactor: Int, origin: String) -> FileKeys {
        FileKeys(
            origin: origin, identities: { [.scrypt(passphrase: passphrase, maxWorkFactor: 22)] },
            recipientsForNewFile: { [.scrypt(passphrase: passphrase, workFactor: workFactor)] })
    }
}
