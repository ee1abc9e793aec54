public import VaultAge
import VaultAgeFile
import VaultFeatures
import VaultOpenBao
import VaultSecretService
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// The glue: the only code that builds stores, from the command line's options and the
/// environment read once into ``Configuration``.
///
/// Everything else in the library takes its dependencies as arguments. Precedence is always
/// command-line option, then environment variable, then default. Each concern has its file:
/// which backend (`StoreFactory+BackendResolution`), the stores and their pairs
/// (`StoreFactory+Stores`, `StoreFactory+StorePairs`), a vault file's keys
/// (`StoreFactory+FileKeys`), recipients given by the user (`StoreFactory+Recipients`) and
/// age's post-quantum rule (`StoreFactory+MixedKinds`).
public struct StoreFactory {
    public let options: GlobalOptions
    /// The environment, read once.
    public let configuration: Configuration
    let prompt: PassphrasePrompt?
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

    /// The service names are given under: `--service`, `VAULT_SERVICE`, or `vault`.
    public func service() throws(VaultError) -> String {
        let service = options.service ?? configuration.service ?? SecretName.defaultService
        try SecretName.validate(service, what: "service")
        return service
    }

    /// The name of the secret `account` in the current service.
    public func name(_ account: String) throws(VaultError) -> SecretName {
        try SecretName(service: try service(), account: account)
    }

    /// The vault file: `--file`, `VAULT_FILE`, `$XDG_DATA_HOME/vault/vault.age`,
    /// or `~/.local/share/vault/vault.age`.
    public func filePath() throws(VaultError) -> String {
        if let path = options.file ?? configuration.file { return path }
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
        try configuration.scryptWorkFactor.get()
    }

    /// vault's state folder: `$XDG_STATE_HOME/vault`, or `~/.local/state/vault`; nil when neither
    /// can be found.
    func stateDirectory() -> String? { configuration.folders.vaultState }
}
