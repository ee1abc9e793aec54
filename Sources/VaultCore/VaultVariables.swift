import VaultAge

/// One environment variable that vault reads.
public struct VaultVariable: Sendable, Hashable {
    /// The variable's name, e.g. `VAULT_FILE`.
    public let name: String
    /// What it is, in a few words (`vault help` shows it).
    public var meaning: String { describe() }
    /// Whether it holds a key to the vault or says where one is: `vault exec` never passes it on.
    public let isKeyMaterial: Bool
    /// The name HashiCorp Vault's tools give an OpenBao variable, read when this one is unset.
    let aliasName: String?
    /// Words the help builds only when it is shown: some come from tables (the backends, age's
    /// key kinds) that a command reading the variable has no need to build.
    private let describe: @Sendable () -> String

    init(
        _ name: String, _ meaning: @autoclosure @escaping @Sendable () -> String, keyMaterial: Bool = false,
        alias: String? = nil
    ) {
        self.name = name
        self.describe = meaning
        self.isKeyMaterial = keyMaterial
        self.aliasName = alias
    }

    /// A variable is its name: two declarations of one name are one variable.
    public static func == (lhs: VaultVariable, rhs: VaultVariable) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The variable HashiCorp Vault's tools name ``aliasName``: documented, and key material
    /// when this one is.
    var alias: VaultVariable? {
        aliasName.map { VaultVariable($0, "read when \(name) is not set", keyMaterial: isKeyMaterial) }
    }
}

/// The variables by what they set: what ``Configuration`` reads, and what ``VaultVariables/all``
/// lists, in one declaration. No other code spells their names.
extension VaultVariable {
    static let backend = VaultVariable("VAULT_BACKEND", "\(BackendKind.namesSpelledOut) (default auto)")
    static let file = VaultVariable("VAULT_FILE", "the vault file (also makes auto choose the file)")
    static let service = VaultVariable("VAULT_SERVICE", "the service names belong to (default vault)")
    static let timeout = VaultVariable("VAULT_TIMEOUT", "seconds to wait for the Secret Service (default 5)")
    static let promptTimeout = VaultVariable(
        "VAULT_PROMPT_TIMEOUT", "seconds to wait for a keyring's unlock or approval dialog (default 120)")
    static let scryptWorkFactor = VaultVariable(
        "VAULT_SCRYPT_WORK_FACTOR", "log2 of scrypt's N for new passphrase files (default 18)")
    static let unlockTTL = VaultVariable(
        "VAULT_UNLOCK_TTL", "how long the kernel keeps a file key after a prompt (default 15m, 0 off)")
    static let unlockScope = VaultVariable(
        "VAULT_UNLOCK_SCOPE", "session (default: this login) or user (all your processes)")
    static let fallback = VaultVariable("VAULT_FALLBACK", "a store that secrets are moved out of as they are read")
    static let refreshSkew = VaultVariable(
        "VAULT_REFRESH_SKEW", "refresh a living token this many seconds early (default 60)")
    static let refreshOrigins = VaultVariable(
        "VAULT_REFRESH_ORIGINS", "token endpoint origins refreshes may go to without a local approval")
    static let allowHTTP = VaultVariable(
        "VAULT_ALLOW_HTTP", "1 allows plain http token endpoints and BAO_ADDR on other machines")

    // The unlock variables of a vault file, in the order they are looked up.
    static let identity = VaultVariable(
        "VAULT_IDENTITY", "an age identity: \(Age.either(Age.identitySpellings))", keyMaterial: true)
    static let identityFile = VaultVariable(
        "VAULT_IDENTITY_FILE", "a file of age identities (mode 600)", keyMaterial: true)
    static let passphrase = VaultVariable("VAULT_PASSPHRASE", "the vault file's passphrase", keyMaterial: true)
    static let passphraseFile = VaultVariable(
        "VAULT_PASSPHRASE_FILE", "a file holding the passphrase (mode 600)", keyMaterial: true)

    // The OpenBao variables, each with the name HashiCorp Vault's tools give it.
    static let baoAddress = VaultVariable(
        "BAO_ADDR", "the OpenBao server, or several nodes separated by commas", alias: "VAULT_ADDR")
    static let baoToken = VaultVariable("BAO_TOKEN", "the OpenBao token", keyMaterial: true, alias: "VAULT_TOKEN")
    // The JWT, and what a job asks its Actions endpoint for one with, let anyone log in as the
    // job: a child gets neither (nor the file's path, as for BAO_SECRET_ID_FILE).
    static let baoJWT = VaultVariable(
        "BAO_JWT", "a JWT for an OpenBao JWT login", keyMaterial: true, alias: "VAULT_JWT")
    static let baoJWTFile = VaultVariable(
        "BAO_JWT_FILE", "a file holding the JWT (Kubernetes, GitLab CI)", keyMaterial: true, alias: "VAULT_JWT_FILE")
    static let baoJWTRole = VaultVariable("BAO_JWT_ROLE", "the role of the OpenBao JWT login", alias: "VAULT_JWT_ROLE")
    static let baoJWTMount = VaultVariable(
        "BAO_JWT_MOUNT", "where the jwt auth method is mounted (default jwt)", alias: "VAULT_JWT_MOUNT")
    static let baoJWTAudience = VaultVariable(
        "BAO_JWT_AUDIENCE", "the audience of the Actions id token (default: the provider's)",
        alias: "VAULT_JWT_AUDIENCE")
    static let actionsTokenURL = VaultVariable(
        "ACTIONS_ID_TOKEN_REQUEST_URL", "GitHub or Forgejo Actions: where a job asks for its id token",
        keyMaterial: true)
    static let actionsTokenCredential = VaultVariable(
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GitHub or Forgejo Actions: the job's credential for that",
        keyMaterial: true)
    static let baoRoleID = VaultVariable(
        "BAO_ROLE_ID", "the AppRole role for an OpenBao login", alias: "VAULT_ROLE_ID")
    static let baoSecretID = VaultVariable(
        "BAO_SECRET_ID", "the AppRole secret for an OpenBao login", keyMaterial: true, alias: "VAULT_SECRET_ID")
    static let baoSecretIDFile = VaultVariable(
        "BAO_SECRET_ID_FILE", "a file holding the AppRole secret", keyMaterial: true, alias: "VAULT_SECRET_ID_FILE")
    static let baoAppRoleMount = VaultVariable(
        "BAO_APPROLE_MOUNT", "where AppRole is mounted (default approle)", alias: "VAULT_APPROLE_MOUNT")
    static let baoKVMount = VaultVariable(
        "BAO_KV_MOUNT", "the OpenBao KV v2 mount (default secret)", alias: "VAULT_KV_MOUNT")
    static let baoCACert = VaultVariable(
        "BAO_CACERT", "a CA certificate file for the OpenBao server", alias: "VAULT_CACERT")
    static let baoSkipVerify = VaultVariable(
        "BAO_SKIP_VERIFY", "turns TLS verification of the OpenBao server off (warned)", alias: "VAULT_SKIP_VERIFY")
}

/// Every environment variable vault reads: the one list behind `vault exec`'s removal of key
/// material, `vault doctor`, `vault help` and the man page test (docs/vault.1, ENVIRONMENT).
public enum VaultVariables {
    /// The unlock variables of a file vault, in the order they are looked up.
    static let unlockVariables: [VaultVariable] = [.identity, .identityFile, .passphrase, .passphraseFile]

    /// Their names.
    public static let unlock = unlockVariables.map(\.name)

    // String + String: appending a Substring went through an unspecialised generic, whose run-time
    // type look-up cost every command about 0.1 ms at start.
    /// The destination's unlock variables for `migrate` and `rekey`, in the order they are looked up.
    public static let destinationUnlock = unlock.map { destinationPrefix + String($0.dropFirst(prefix.count)) }

    /// The prefix of vault's own variables, and of the destination's unlock variables.
    static let prefix = "VAULT_"
    static let destinationPrefix = "VAULT_TO_"

    /// The OpenBao variables in the man page's order, the Actions id-token pair among them.
    private static let openBao: [VaultVariable] = [
        .baoAddress, .baoToken, .baoJWT, .baoJWTFile, .baoJWTRole, .baoJWTMount, .baoJWTAudience,
        .actionsTokenURL, .actionsTokenCredential, .baoRoleID, .baoSecretID, .baoSecretIDFile, .baoAppRoleMount,
        .baoKVMount, .baoCACert, .baoSkipVerify,
    ]

    /// Every variable, in the order the man page lists them.
    public static let all: [VaultVariable] =
        [VaultVariable.backend, .file, .service, .timeout]
        + openBao
        + openBao.compactMap(\.alias)
        + [.promptTimeout]
        + unlockVariables
        + [.scryptWorkFactor, .unlockTTL, .unlockScope]
        + destinationUnlock.map { VaultVariable($0, "the destination's key for migrate and rekey", keyMaterial: true) }
        + [
            .fallback, .refreshSkew, .refreshOrigins, .allowHTTP,
            VaultVariable("XDG_DATA_HOME", "where the default vault file lives"),
            VaultVariable("HOME", "where the default vault file lives without XDG_DATA_HOME"),
            VaultVariable("CI", "when set (not empty, 0 or false), vault never prompts and opens no dialog"),
            VaultVariable(
                "XDG_STATE_HOME",
                "where written headers, refresh approvals (and, without XDG_RUNTIME_DIR, journals) are kept"),
            VaultVariable("XDG_CONFIG_HOME", "where the list of approved refresh commands is kept"),
            VaultVariable("XDG_CACHE_HOME", "where the keyring write lock is kept without XDG_RUNTIME_DIR"),
            VaultVariable("DBUS_SESSION_BUS_ADDRESS", "the session bus of the Secret Service"),
            VaultVariable("DISPLAY", "a display: a keyring may show its unlock dialog"),
            VaultVariable("WAYLAND_DISPLAY", "a display: a keyring may show its unlock dialog"),
            VaultVariable("HTTPS_PROXY", "the proxy for https requests (also https_proxy)"),
            VaultVariable("ALL_PROXY", "the proxy for http and https requests (also all_proxy)"),
            VaultVariable("NO_PROXY", "hosts reached without the proxy (also no_proxy)"),
            VaultVariable("XDG_RUNTIME_DIR", "where the session bus socket, refresh locks and journals are"),
            VaultVariable("NO_COLOR", "honoured trivially: vault never writes colour"),
            VaultVariable("PATH", "searched by exec for a command without a slash"),
        ]

    /// The names of the variables that must never reach a child process.
    public static let keyMaterial: [String] = all.filter(\.isKeyMaterial).map(\.name)
}
