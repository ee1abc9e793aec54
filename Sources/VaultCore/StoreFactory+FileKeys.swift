import VaultAge
public import VaultAgeFile
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// Which key variables unlock a vault file.
public enum FileKeySet: Sendable, Equatable {
    /// `VAULT_IDENTITY`, `VAULT_IDENTITY_FILE`, `VAULT_PASSPHRASE`, `VAULT_PASSPHRASE_FILE`.
    case vault
    /// The destination's for `migrate` and `rekey`: `VAULT_TO_IDENTITY` and the rest.
    case destination
}

/// A vault file's keys: the key variables, read into ``Configuration``, else the terminal's
/// passphrase prompt; and how an encrypted key asks its questions.
extension StoreFactory {
    /// The key material named by the set's identity, identity file, passphrase and passphrase
    /// file variables, in that order, else the terminal prompt.
    ///
    /// Variables were read with the configuration; files are read and the prompt asked only when
    /// the store needs keys.
    public func fileKeys(_ set: FileKeySet, path: String) throws(VaultError) -> FileKeys {
        let variables = keyVariables(set)
        let workFactor = try scryptWorkFactor()
        if let identity = variables.identity {
            let identities = try parseIdentity(identity.value, origin: identity.name)
            return FileKeys(
                origin: identity.name, identities: { identities },
                recipientsForNewFile: { () throws(VaultError) in
                    try FileKeys.recipients(of: identities, origin: identity.name)
                },
                neededPerson: { identities.contains { $0.needsPerson } })
        }
        if let named = variables.identityFile {
            let file = named.value
            let origin = "\(named.name) (\(file))"
            let prompter = keyPrompter
            let load = Once { () throws(VaultError) -> [any AgeIdentity] in
                let bytes = try FileSystem.readPrivate(file, what: "identity file")
                do throws(AgeError) {
                    return try Age.parseIdentityFile(String(decoding: bytes, as: UTF8.self), prompter: prompter)
                } catch {
                    throw VaultError(
                        .cannotUnlock, "\(origin): \(error.message)",
                        remedy: VaultError.Remedy(error.remedy, keyFile: file))
                }
            }
            return FileKeys(
                origin: origin,
                identities: { () throws(VaultError) in try load.value() },
                recipientsForNewFile: { () throws(VaultError) in
                    try FileKeys.recipients(of: load.value(), origin: origin)
                },
                // An encrypted key's passphrase, a hardware key's PIN: asked of a person.
                neededPerson: { load.hasValue && ((try? load.value()) ?? []).contains { $0.needsPerson } })
        }
        if let passphrase = variables.passphrase {
            return .passphrase(SecureBytes(passphrase.value.utf8), workFactor: workFactor, origin: passphrase.name)
        }
        if let named = variables.passphraseFile {
            let file = named.value
            let origin = "\(named.name) (\(file))"
            let load = Once { () throws(VaultError) -> SecureBytes in
                var bytes = try FileSystem.readPrivate(file, what: "passphrase file")
                if bytes.last == 0x0A { bytes.removeLast() }
                if bytes.last == 0x0D { bytes.removeLast() }
                guard !bytes.isEmpty else { throw VaultError(.cannotUnlock, "\(origin) is empty") }
                return bytes
            }
            return FileKeys(
                origin: origin,
                identities: { () throws(VaultError) in [ScryptIdentity(passphrase: try load.value(), maxWorkFactor: 22)]
                },
                recipientsForNewFile: { () throws(VaultError) in
                    [ScryptRecipient(passphrase: try load.value(), workFactor: workFactor)]
                })
        }
        let names = variables.names
        let prompt = self.prompt
        let ask = { (message: String, confirm: Bool) throws(VaultError) -> SecureBytes in
            guard let prompt, let answer = try prompt(message, confirm) else {
                throw VaultError(
                    .cannotUnlock, "no terminal to ask for the passphrase of \(path)",
                    remedy: .setVariable(oneOf: names))
            }
            guard !answer.isEmpty else { throw VaultError(.cannotUnlock, "the passphrase is empty") }
            return answer
        }
        let existing = Once { () throws(VaultError) in try ask("Passphrase for \(path): ", false) }
        let new = Once { () throws(VaultError) in try ask("New passphrase for \(path): ", true) }
        return FileKeys(
            origin: "the passphrase typed at the prompt",
            identities: { () throws(VaultError) in [ScryptIdentity(passphrase: try existing.value(), maxWorkFactor: 22)]
            },
            recipientsForNewFile: { () throws(VaultError) in
                [ScryptRecipient(passphrase: try new.value(), workFactor: workFactor)]
            },
            neededPerson: { existing.hasValue || new.hasValue })
    }

    /// The set's variables, as the configuration read them.
    func keyVariables(_ set: FileKeySet) -> Configuration.FileKeyVariables {
        set == .vault ? configuration.fileKeys : configuration.destinationFileKeys
    }

    /// How a key asks its questions (an encrypted SSH key's passphrase): at the terminal through
    /// the prompt, or nobody when there is none.
    var keyPrompter: AgePrompter {
        let plugins = pluginHost()
        guard let prompt else { return AgePrompter(plugins: plugins, secret: { (_) throws(AgeError) in nil }) }
        return AgePrompter(plugins: plugins) { (message) throws(AgeError) -> SecureBytes? in
            do throws(VaultError) {
                return try prompt(message, false)
            } catch {
                throw AgeError(kind: .cannotAsk, message: error.message)
            }
        }
    }

    /// The identities in the identity variable: a key of any kind the age layer reads.
    private func parseIdentity(_ text: String, origin: String) throws(VaultError) -> [any AgeIdentity] {
        do {
            return try Age.parseIdentityFile(text, prompter: keyPrompter)
        } catch {
            throw VaultError(
                .cannotUnlock,
                "\(origin) is not an age identity (\(Age.either(Age.identitySpellings))): \(error.message)",
                remedy: VaultError.Remedy(error.remedy, keyFile: nil))
        }
    }
}
