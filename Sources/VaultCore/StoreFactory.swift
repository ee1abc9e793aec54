public import VaultAge
public import VaultAgeFile
import VaultFeatures
import VaultOpenBao
import VaultSecretService
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// The glue: the only code that reads environment variables and builds stores.
///
/// Everything else in the library takes its dependencies as arguments. Precedence is always
/// command-line option, then environment variable, then default. The environment is read once,
/// into ``Configuration``; the methods here read that value.
public struct StoreFactory {
    public let options: GlobalOptions
    /// The environment, read once.
    public let configuration: Configuration
    private let prompt: PassphrasePrompt?
    /// Who answers an age plugin's questions (a PIN, a touch): the executable's terminal, else
    /// no one (every question is answered `fail`).
    public var pluginPrompts: PluginPrompts = .nobody

    /// The Secret Service timeout used when `VAULT_TIMEOUT` is not set, in seconds.
    public static let defaultTimeout = Configuration.defaultTimeout

    public init(options: GlobalOptions, configuration: Configuration, prompt: PassphrasePrompt?) {
        self.options = options
        self.configuration = configuration
        self.prompt = prompt
    }

    /// Reads `environment` into a ``Configuration`` with no person at a terminal (what tests and
    /// scripts see).
    public init(options: GlobalOptions, environment: [String: String], prompt: PassphrasePrompt?) {
        self.init(options: options, configuration: Configuration(environment: environment), prompt: prompt)
    }

    /// The environment as the tool read it (what child processes inherit).
    public var environment: [String: String] { configuration.environment }

    /// Whether vault may ask on the terminal (``Configuration/allowsPrompts``).
    public var allowsPrompts: Bool { configuration.allowsPrompts }

    func value(_ name: String) -> String? { Configuration.value(name, in: environment) }

    /// The service names are given under: `--service`, `VAULT_SERVICE`, or `vault`.
    public func service() throws(VaultError) -> String {
        let service = options.service ?? value("VAULT_SERVICE") ?? SecretName.defaultService
        try SecretName.validate(service, what: "service")
        return service
    }

    /// The name of the secret `account` in the current service.
    public func name(_ account: String) throws(VaultError) -> SecretName {
        try SecretName(service: try service(), account: account)
    }

    /// The backend asked for: `--backend`, `VAULT_BACKEND`, or `auto`.
    public func requestedBackend() throws(VaultError) -> BackendKind {
        if let flag = options.backend { return try BackendKind(parsing: flag, from: .backend) }
        if let env = value("VAULT_BACKEND") { return try BackendKind(parsing: env, from: .variable("VAULT_BACKEND")) }
        return .auto
    }

    /// The vault file: `--file`, `VAULT_FILE`, `$XDG_DATA_HOME/vault/vault.age`,
    /// or `~/.local/share/vault/vault.age`.
    public func filePath() throws(VaultError) -> String {
        if let path = options.file ?? value("VAULT_FILE") { return path }
        if let data = configuration.folders.data { return data + "/vault/vault.age" }
        guard let home = configuration.folders.home else {
            throw VaultError(.usage, "HOME is not set", remedy: .nameVaultFile)
        }
        return home + "/.local/share/vault/vault.age"
    }

    /// Seconds to wait for the Secret Service: `VAULT_TIMEOUT`, else ``defaultTimeout``.
    public func timeout() throws(VaultError) -> Double {
        try configuration.timeout.get()
    }

    /// The scrypt work factor (log2 N) for new passphrase vaults: `VAULT_SCRYPT_WORK_FACTOR`, else 18.
    public func scryptWorkFactor() throws(VaultError) -> Int {
        guard let text = value("VAULT_SCRYPT_WORK_FACTOR") else { return 18 }
        guard let factor = Int(text), (10...22).contains(factor) else {
            throw VaultError(
                .usage, "VAULT_SCRYPT_WORK_FACTOR is '\(text)'",
                remedy: .giveAccepted(forms: "a whole number from 10 to 22"))
        }
        return factor
    }

    /// Resolves `auto`: the file when a file was named (`--file`, `VAULT_FILE`); else the Secret
    /// Service when a provider is there, usable or not (a locked keyring is exit 4, never a silent
    /// switch to the file); else the file. Says which rule chose it.
    public func resolvedBackend() throws(VaultError) -> ResolvedBackend {
        try resolvedBackend(probe: nil)
    }

    /// As ``resolvedBackend()``, with the Secret Service already probed (or `nil` to probe).
    func resolvedBackend(probe: SecretServiceProbe?) throws(VaultError) -> ResolvedBackend {
        let requested = try requestedBackend()
        guard requested == .auto else {
            return ResolvedBackend(requested, .requested(requested, byOption: options.backend != nil))
        }
        if options.file != nil || value("VAULT_FILE") != nil { return ResolvedBackend(.file, .fileNamed) }
        _ = try timeout()  // a bad VAULT_TIMEOUT is a usage error, not a reason to fall back to the file
        switch probe ?? secretServiceProbe() {
        case .usable: return ResolvedBackend(.secretService, .secretServiceAnswers)
        case .unusable: return ResolvedBackend(.secretService, .secretServiceUnusable)
        case .absent: return ResolvedBackend(.file, .noSecretService)
        }
    }

    /// Why the Secret Service cannot be used, or `nil` if it can.
    public func secretServiceProblem() -> VaultError? {
        switch secretServiceProbe() {
        case .usable: return nil
        case .absent(let problem), .unusable(let problem): return problem
        }
    }

    /// Builds the store for the resolved backend; with `VAULT_FALLBACK` set, a ``FallbackStore``
    /// that moves secrets from the store it names into that one as they are read.
    public func makeStore() throws(VaultError) -> any SecretStore {
        let current = BackendSpec(try resolvedBackend().kind)
        let store = try makeStore(current, keyPrefix: "VAULT_")
        guard let fallback = try fallbackStore(current: current) else { return store }
        return FallbackStore(primary: store, fallback: fallback)
    }

    /// Builds the file store at ``filePath()`` unlocked by the `VAULT_*` key variables.
    public func makeFileStore() throws(VaultError) -> FileStore {
        let path = try filePath()
        return FileStore(
            path: path, keys: try fileKeys(prefix: "VAULT_", path: path), trust: headerTrust(),
            cache: try fileKeyCache())
    }

    /// The kernel keyring's cache of unlocked file keys, with the policy of `VAULT_UNLOCK_TTL`,
    /// `VAULT_UNLOCK_SCOPE` and `CI`.
    public func fileKeyCache() throws(VaultError) -> FileKeyCache {
        FileKeyCache(policy: try configuration.unlock.get())
    }

    /// Where the headers this user wrote are remembered: `$XDG_STATE_HOME/vault/headers`, or
    /// `~/.local/state/vault/headers`; nil (nothing checked) when neither can be found.
    public func headerTrust() -> HeaderTrust? {
        stateDirectory().map { HeaderTrust(directory: $0 + "/headers") }
    }

    /// vault's state folder: `$XDG_STATE_HOME/vault`, or `~/.local/state/vault`; nil when neither
    /// can be found.
    func stateDirectory() -> String? { configuration.folders.vaultState }

    /// The key material named by `<prefix>IDENTITY`, `<prefix>IDENTITY_FILE`, `<prefix>PASSPHRASE`,
    /// `<prefix>PASSPHRASE_FILE`, in that order, else the terminal prompt.
    ///
    /// Variables are read now; files are read and the prompt asked only when the store needs keys.
    public func fileKeys(prefix: String, path: String) throws(VaultError) -> FileKeys {
        let workFactor = try scryptWorkFactor()
        if let text = value(prefix + "IDENTITY") {
            let identities = try parseIdentity(text, origin: prefix + "IDENTITY")
            return FileKeys(
                origin: prefix + "IDENTITY", identities: { identities },
                recipientsForNewFile: { () throws(VaultError) in
                    try FileKeys.recipients(of: identities, origin: prefix + "IDENTITY")
                },
                neededPerson: { identities.contains { $0.needsPerson } })
        }
        if let file = value(prefix + "IDENTITY_FILE") {
            let origin = "\(prefix)IDENTITY_FILE (\(file))"
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
        if let passphrase = value(prefix + "PASSPHRASE") {
            return .passphrase(SecureBytes(passphrase.utf8), workFactor: workFactor, origin: prefix + "PASSPHRASE")
        }
        if let file = value(prefix + "PASSPHRASE_FILE") {
            let origin = "\(prefix)PASSPHRASE_FILE (\(file))"
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
        let variables = ["IDENTITY", "IDENTITY_FILE", "PASSPHRASE", "PASSPHRASE_FILE"].map { prefix + $0 }
        let prompt = self.prompt
        let ask = { (message: String, confirm: Bool) throws(VaultError) -> SecureBytes in
            guard let prompt, let answer = try prompt(message, confirm) else {
                throw VaultError(
                    .cannotUnlock, "no terminal to ask for the passphrase of \(path)",
                    remedy: .setVariable(oneOf: variables))
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

    /// How a key asks its questions (an encrypted SSH key's passphrase): at the terminal through
    /// the prompt, or nobody when there is none.
    private var keyPrompter: AgePrompter {
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

    /// The identities in `<prefix>IDENTITY`: a key of any kind the age layer reads.
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

extension StoreFactory {
    /// The stores `vault migrate --from FROM --to TO` moves secrets between.
    ///
    /// A source file is unlocked with the `VAULT_*` key variables; a destination file with the
    /// `VAULT_TO_*` ones if any is set, else also with `VAULT_*` (see docs/migration.md).
    /// Naming the same store twice is a usage error.
    public func migrationStores(
        from: String, to: String
    ) throws(VaultError) -> (source: any SecretStore, destination: any SecretStore) {
        let source = try BackendSpec(parsing: from, from: .migrationSource)
        let destination = try BackendSpec(parsing: to, from: .migrationDestination)
        if try identity(of: source) == identity(of: destination) {
            throw VaultError(
                .usage, "are the same store; nothing to migrate",
                input: .migrationStores(source: from, destination: to))
        }
        let keyNames = ["IDENTITY", "IDENTITY_FILE", "PASSPHRASE", "PASSPHRASE_FILE"]
        let toPrefix = keyNames.contains { value("VAULT_TO_" + $0) != nil } ? "VAULT_TO_" : "VAULT_"
        return (try makeStore(source, keyPrefix: "VAULT_"), try makeStore(destination, keyPrefix: toPrefix))
    }

    /// The store `VAULT_FALLBACK` names, unlocked like the current one; `nil` if it is not set.
    private func fallbackStore(current: BackendSpec) throws(VaultError) -> (any SecretStore)? {
        guard let text = value("VAULT_FALLBACK") else { return nil }
        let spec = try BackendSpec(parsing: text, from: .variable("VAULT_FALLBACK"))
        if try identity(of: spec) == identity(of: current) {
            throw VaultError(
                .usage, "VAULT_FALLBACK=\(text) names the current backend, not a store to move secrets from")
        }
        return try makeStore(spec, keyPrefix: "VAULT_")
    }

    private func makeStore(_ spec: BackendSpec, keyPrefix: String) throws(VaultError) -> any SecretStore {
        switch spec {
        case .secretService:
            return try makeSecretServiceStore()
        case .openbao:
            return try makeOpenBaoStore()
        case .file(let named):
            let path = try filePath(named)
            return FileStore(
                path: path, keys: try fileKeys(prefix: keyPrefix, path: path), trust: headerTrust(),
                cache: try fileKeyCache())
        }
    }

    /// What tells two specs apart.
    private func identity(of spec: BackendSpec) throws(VaultError) -> StoreIdentity {
        switch spec {
        case .secretService: return SecretServiceStore.sessionIdentity
        case .openbao: return try openBaoSettings().identity
        case .file(let named): return FileStore.identity(path: try filePath(named))
        }
    }

    /// `file:PATH`'s path, or the usual vault file for plain `file`.
    private func filePath(_ named: String?) throws(VaultError) -> String {
        if let named { return named }
        return try filePath()
    }
}
