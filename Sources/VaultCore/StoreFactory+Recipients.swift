import VaultAge
import VaultAgeFile
public import VaultStorage
import VaultSystem

/// Recipients given by the user (`--recipient`, `--recipients-file`), each failure a usage error
/// that says which one, never echoing a key.
extension StoreFactory {
    /// Parses age public keys given on the command line and in recipients files.
    public func recipients(publicKeys: [String], files: [String]) throws(VaultError) -> NewFileRecipients {
        var recipients: [any AgeRecipient] = []
        var warnings: [String] = []
        // Never echo a recipient: a secret key there (even behind a space or a quote) would
        // reach the log; say which one it is.
        for (index, key) in publicKeys.enumerated() {
            let which = VaultError.Input.recipient(number: publicKeys.count == 1 ? nil : index + 1)
            if key.uppercased().contains("AGE-SECRET-KEY-") {
                throw VaultError(
                    .usage, "was given an age secret key", input: which,
                    remedy: .giveAccepted(forms: "its public key (age-keygen -y)"))
            }
            do {
                recipients.append(try Age.parseRecipient(key, prompter: keyPrompter))
            } catch {
                let what = "is not an age public key (\(Age.either(Age.recipientSpellings)))"
                throw VaultError(
                    .usage, "\(what): \(error.message)", input: which,
                    remedy: VaultError.Remedy(error.remedy, keyFile: nil))
            }
        }
        for file in files {
            guard let bytes = try FileSystem.read(file, limit: 1 << 20) else {
                throw VaultError(.usage, "the recipients file \(file) does not exist")
            }
            do {
                let parsed = try Age.parseRecipientsFile(String(decoding: bytes, as: UTF8.self), prompter: keyPrompter)
                recipients += parsed.recipients
                // age skips such lines too (GitHub's USER.keys often lists an ecdsa key); say so.
                warnings += parsed.skipped.map { "the recipients file \(file) line \($0.line): \($0.reason); skipped" }
            } catch {
                throw VaultError(
                    .usage, "the recipients file \(file): \(error.message)",
                    remedy: VaultError.Remedy(error.remedy, keyFile: nil))
            }
        }
        guard !recipients.isEmpty else { throw VaultError(.usage, "the recipients files hold no public key") }
        try FileKeys.refuseMixedKinds(recipients, origin: nil)
        return NewFileRecipients(recipients: recipients, warnings: warnings)
    }
}
