public import VaultSecureBytes

/// A passphrase as a recipient: the file key wrapped with scrypt at `workFactor` (log2 N).
///
/// It must be the only recipient of a file (an age rule), or encryption throws `.invalidKey`.
public struct ScryptRecipient: AgeRecipient {
    let passphrase: SecureBytes
    let workFactor: Int

    public init(passphrase: SecureBytes, workFactor: Int = 18) {
        self.passphrase = passphrase
        self.workFactor = workFactor
    }

    public var description: String { "a passphrase" }
    public var stanzaTypes: [StanzaType] { [.scrypt] }
    public var mustBeAlone: Bool { true }

    public func wrap(_ fileKey: FileKey) throws(AgeError) -> [Stanza] {
        [try Scrypt.wrap(fileKey, passphrase: passphrase, workFactor: workFactor)]
    }
}

/// A passphrase as an identity: unwraps scrypt stanzas, and rejects work factors above
/// `maxWorkFactor` with `.workFactor` before doing any work.
public struct ScryptIdentity: AgeIdentity {
    let passphrase: SecureBytes
    let maxWorkFactor: Int

    public init(passphrase: SecureBytes, maxWorkFactor: Int = 22) {
        self.passphrase = passphrase
        self.maxWorkFactor = maxWorkFactor
    }

    public var description: String { "a passphrase" }
    public var stanzaTypes: [StanzaType] { [.scrypt] }

    /// The same passphrase, at the default work factor.
    public func matchingRecipient() -> any AgeRecipient { ScryptRecipient(passphrase: passphrase) }

    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        try Scrypt.unwrap(stanzas, passphrase: passphrase, maxWorkFactor: maxWorkFactor)
    }
}
