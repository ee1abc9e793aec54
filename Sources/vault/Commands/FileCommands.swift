import VaultAge
import VaultAgeFile
import VaultCore
import VaultStorage

extension CommandSpec {
    static let initialize = CommandSpec(
        name: "init", operands: "",
        summary: "create an empty vault file",
        details: """
            Creates the vault file explicitly. With --passphrase it is encrypted to a passphrase
            (VAULT_PASSPHRASE, VAULT_PASSPHRASE_FILE, or asked twice on the terminal). With --recipient
            (repeatable) or --recipients-file it is encrypted to age public keys, so that a team or a CI
            system can share one file. With none of these, the same rule as the first 'vault set' applies:
            the identity's public key if VAULT_IDENTITY or VAULT_IDENTITY_FILE is set, else a passphrase.
            A plugin recipient (age1NAME1...) runs age-plugin-NAME from PATH's absolute folders; its
            questions (a PIN, a touch) are asked on the terminal, and are exit 4 without one.
            Fails with exit 7 if the file exists (use 'vault rekey' to change its keys).
            A recipient may also be an SSH public key ("ssh-ed25519 AAAA... comment" or "ssh-rsa ..."),
            and a recipients file may mix them with age1... lines, as GitHub's USER.keys files do; a
            line with a key type age cannot use (ecdsa-sha2-*, sk-ssh-*) is skipped with a warning that
            names its line number, and a file left with no usable key is exit 2.
            """,
        options: RecipientOptions.specs(passphrase: "encrypt to a passphrase"),
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            guard try invocation.factory.resolvedBackend().kind == .file else {
                throw VaultError(.usage, "'vault init' creates a vault file; use --backend file")
            }
            let store = try invocation.factory.makeFileStore()
            let recipients = try invocation.factory.recipientsForNewFile(
                try RecipientOptions.choice(invocation), variables: .vault, path: store.path)
            for warning in recipients.warnings { StandardIO.error("warning: \(warning)") }
            try store.create(recipients: recipients.recipients)
            StandardIO.error("created \(store.path), encrypted to \(recipients.summary)")
            return ExitStatus.success
        })
}

extension CommandSpec {
    static let rekey = CommandSpec(
        name: "rekey", operands: "",
        summary: "re-encrypt the vault file to a new passphrase or new age public keys",
        details: """
            Rewrites the vault file, in one atomic replacement, under a fresh file key for a new passphrase
            (--passphrase) or new age public keys (--recipient, repeatable, and --recipients-file).
            Afterwards the old passphrase or identity no longer opens the file, the new one does, and every
            secret is unchanged. The file is opened as usual (VAULT_IDENTITY, VAULT_IDENTITY_FILE,
            VAULT_PASSPHRASE, VAULT_PASSPHRASE_FILE or the terminal). The new passphrase comes from
            VAULT_TO_PASSPHRASE or VAULT_TO_PASSPHRASE_FILE, else it is asked twice on the terminal.
            With none of the options, the new key is VAULT_TO_IDENTITY's or VAULT_TO_IDENTITY_FILE's public
            key, else a new passphrase as above. Only a vault file can be rekeyed (exit 2 for the Secret
            Service, which keeps its own keys); exit 1 if there is no vault file.
            """,
        options: RecipientOptions.specs(passphrase: "encrypt to a new passphrase"),
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            guard try invocation.factory.resolvedBackend().kind == .file else {
                throw VaultError(
                    .usage,
                    "'vault rekey' re-encrypts a vault file; the Secret Service has its own keys (use --backend file)")
            }
            let store = try invocation.factory.makeFileStore()
            guard store.exists else { throw VaultError(.notFound, "no vault file at \(store.path)") }
            // Open it with the current key before asking for a new one.
            _ = try store.list(service: nil)
            let recipients = try invocation.factory.recipientsForNewFile(
                try RecipientOptions.choice(invocation), variables: .destination, path: store.path)
            for warning in recipients.warnings { StandardIO.error("warning: \(warning)") }
            try store.rekey(to: recipients.recipients)
            StandardIO.error(
                "rekeyed \(store.path), now encrypted to \(recipients.summary); the previous key no longer opens it")
            return ExitStatus.success
        })
}

/// The `--passphrase` / `--recipient` / `--recipients-file` choice shared by `init` and `rekey`.
enum RecipientOptions {
    /// The three options, shared by `init` and `rekey`.
    static func specs(passphrase help: String) -> [OptionSpec] {
        [
            OptionSpec(.passphrase, help),
            OptionSpec(
                .recipient, value: "age1...", repeatable: true,
                "encrypt to this public key: \(Age.either(Age.recipientSpellings))"),
            OptionSpec(
                .recipientsFile, value: "PATH", completion: .file, repeatable: true,
                "encrypt to the public keys in this file"),
        ]
    }

    /// The options' choice; the age policy behind it is the library's (``NewFileKeys``).
    static func choice(_ invocation: Invocation) throws(VaultError) -> NewFileKeys {
        let keys = invocation.all(.recipient)
        let files = invocation.all(.recipientsFile)
        let passphrase = invocation.flag(.passphrase)
        if passphrase, !keys.isEmpty || !files.isEmpty {
            throw VaultError(.usage, "give --passphrase or recipients, not both (age allows no mix)")
        }
        if passphrase { return .passphrase }
        return keys.isEmpty && files.isEmpty ? .automatic : .recipients(publicKeys: keys, files: files)
    }
}
