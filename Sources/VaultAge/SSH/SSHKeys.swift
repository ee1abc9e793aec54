internal import Synchronization

/// The SSH kinds' entries for the table in `KeyKinds.swift`.
enum SSHKeys {
    /// `ssh-ed25519 AAAA... [comment]` or `ssh-rsa AAAA... [comment]`.
    static func recipient(line: String) throws(AgeError) -> any AgeRecipient {
        try recipient(for: SSHPublicKey(line: line))
    }

    static func recipient(for key: SSHPublicKey) throws(AgeError) -> any AgeRecipient {
        key.type == SSHPublicKey.ed25519 ? try SSHEd25519Recipient(key: key) : try SSHRSARecipient(key: key)
    }

    /// An OpenSSH private key file: opened now when it is not encrypted; an encrypted one asks
    /// for its passphrase when a stanza is addressed to it.
    static func identity(text: String, prompter: AgePrompter) throws(AgeError) -> any AgeIdentity {
        let file = try OpenSSHPrivateKey(text: text)
        guard file.isEncrypted else { return try file.identity(passphrase: nil) }
        return SSHEncryptedIdentity(file: file, prompter: prompter)
    }
}

/// A passphrase-protected SSH private key. Its public key is in the clear, so it names itself and
/// gives its recipient without the passphrase; the passphrase is asked (through the prompter)
/// only when a header has a stanza with this key's tag, and the decrypted key is kept for the
/// rest of the process.
public struct SSHEncryptedIdentity: AgeIdentity {
    let file: OpenSSHPrivateKey
    let prompter: AgePrompter
    private let unlocked = Unlocked()

    /// The decrypted key, once there is one; a Mutex so two threads unwrapping at once ask once.
    private final class Unlocked: Sendable {
        let identity = Mutex<(any AgeIdentity)?>(nil)
    }

    init(file: OpenSSHPrivateKey, prompter: AgePrompter) {
        self.file = file
        self.prompter = prompter
    }

    public var description: String { file.publicKey.description }
    public var stanzaTypes: [StanzaType] { [StanzaType(file.publicKey.type)] }
    public var needsPerson: Bool { true }

    public func matchingRecipient() throws(AgeError) -> any AgeRecipient { try SSHKeys.recipient(for: file.publicKey) }

    public func unwrap(_ stanzas: [Stanza]) throws(AgeError) -> FileKey? {
        let key = file.publicKey
        let addressed = stanzas.contains {
            $0.type == key.type && $0.arguments.count >= 2 && $0.arguments[1] == key.tag
        }
        let result = unlocked.identity.withLock { (identity) -> Result<(any AgeIdentity)?, AgeError> in
            if let identity { return .success(identity) }
            guard addressed else { return .success(nil) }
            do throws(AgeError) {
                guard let passphrase = try prompter.secret("Passphrase for \(description): ") else {
                    throw AgeError(
                        kind: .cannotAsk,
                        message: "\(description) is protected by a passphrase, and there is no terminal to ask for it")
                }
                let opened = try file.identity(passphrase: passphrase)
                identity = opened
                return .success(opened)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let identity): return try identity?.unwrap(stanzas)
        case .failure(let error): throw error
        }
    }
}
