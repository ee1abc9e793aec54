import VaultAge

/// One environment variable that vault reads.
public struct VaultVariable: Sendable, Hashable {
    /// The variable's name, e.g. `VAULT_FILE`.
    public let name: String
    /// What it is, in a few words (`vault help` shows it).
    public let meaning: String
    /// Whether it holds a key to the vault or says where one is: `vault exec` never passes it on.
    public let isKeyMaterial: Bool

    init(_ name: String, _ meaning: String, keyMaterial: Bool = false) {
        self.name = name
        self.meaning = meaning
        self.isKeyMaterial = keyMaterial
    }
}

/// Every environment variable vault reads: the one list behind `vault exec`'s removal of key
/// material, `vault doctor`, `vault help` and the man page test (docs/vault.1, ENVIRONMENT).
public enum VaultVariables {
    /// The unlock variables of a file vault, in the order they are looked up.
    public static let unlock = ["VAULT_IDENTITY", "VAULT_IDENTITY_FILE", "VAULT_PASSPHRASE", "VAULT_PASSPHRASE_FILE"]

    // String + String: appending a Substring went through an unspecialised generic, whose run-time
    // type look-up cost every command about 0.1 ms at start.
    /// The destination's unlock variables for `migrate` and `rekey`, in the order they are looked up.
    public static let destinationUnlock = unlock.map { "VAULT_TO_" + String($0.dropFirst("VAULT_".count)) }

    /// The names HashiCorp Vault's tools give the OpenBao variables, read when the `BAO_` one is unset.
    static let openBaoAliases = [
        "VAULT_ADDR", "VAULT_TOKEN", "VAULT_JWT", "VAULT_JWT_FILE", "VAULT_JWT_ROLE", "VAULT_JWT_MOUNT",
        "VAULT_JWT_AUDIENCE", "VAULT_ROLE_ID", "VAULT_SECRET_ID", "VAULT_SECRET_ID_FILE", "VAULT_APPROLE_MOUNT",
        "VAULT_KV_MOUNT", "VAULT_CACERT", "VAULT_SKIP_VERIFY",
    ]

    /// The aliases that hold a credential or say where one is (see ``all``).
    private static let openBaoKeyAliases = [
        "VAULT_TOKEN", "VAULT_JWT", "VAULT_JWT_FILE", "VAULT_SECRET_ID", "VAULT_SECRET_ID_FILE",
    ]

    /// Every variable, in the order the man page lists them.
    public static let all: [VaultVariable] =
        [
            VaultVariable("VAULT_BACKEND", "\(BackendKind.namesSpelledOut) (default auto)"),
            VaultVariable("VAULT_FILE", "the vault file (also makes auto choose the file)"),
            VaultVariable("VAULT_SERVICE", "the service names belong to (default vault)"),
            VaultVariable("VAULT_TIMEOUT", "seconds to wait for the Secret Service (default 5)"),
            VaultVariable("BAO_ADDR", "the OpenBao server, or several nodes separated by commas"),
            VaultVariable("BAO_TOKEN", "the OpenBao token", keyMaterial: true),
            // The JWT, and what a job asks its Actions endpoint for one with, let anyone log in
            // as the job: a child gets neither (nor the file's path, as for BAO_SECRET_ID_FILE).
            VaultVariable("BAO_JWT", "a JWT for an OpenBao JWT login", keyMaterial: true),
            VaultVariable("BAO_JWT_FILE", "a file holding the JWT (Kubernetes, GitLab CI)", keyMaterial: true),
            VaultVariable("BAO_JWT_ROLE", "the role of the OpenBao JWT login"),
            VaultVariable("BAO_JWT_MOUNT", "where the jwt auth method is mounted (default jwt)"),
            VaultVariable("BAO_JWT_AUDIENCE", "the audience of the Actions id token (default: the provider's)"),
            VaultVariable(
                "ACTIONS_ID_TOKEN_REQUEST_URL", "GitHub or Forgejo Actions: where a job asks for its id token",
                keyMaterial: true),
            VaultVariable(
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GitHub or Forgejo Actions: the job's credential for that",
                keyMaterial: true),
            VaultVariable("BAO_ROLE_ID", "the AppRole role for an OpenBao login"),
            VaultVariable("BAO_SECRET_ID", "the AppRole secret for an OpenBao login", keyMaterial: true),
            VaultVariable("BAO_SECRET_ID_FILE", "a file holding the AppRole secret", keyMaterial: true),
            VaultVariable("BAO_APPROLE_MOUNT", "where AppRole is mounted (default approle)"),
            VaultVariable("BAO_KV_MOUNT", "the OpenBao KV v2 mount (default secret)"),
            VaultVariable("BAO_CACERT", "a CA certificate file for the OpenBao server"),
            VaultVariable("BAO_SKIP_VERIFY", "turns TLS verification of the OpenBao server off (warned)"),
        ]
        + openBaoAliases.map { name in
            VaultVariable(
                name, "read when BAO_\(name.dropFirst("VAULT_".count)) is not set",
                keyMaterial: openBaoKeyAliases.contains(name))
        }
        + [
            VaultVariable(
                "VAULT_PROMPT_TIMEOUT", "seconds to wait for a keyring's unlock or approval dialog (default 120)"),
            VaultVariable(
                "VAULT_IDENTITY",
                "an age identity: \(Age.either(Age.identitySpellings))",
                keyMaterial: true),
            VaultVariable("VAULT_IDENTITY_FILE", "a file of age identities (mode 600)", keyMaterial: true),
            VaultVariable("VAULT_PASSPHRASE", "the vault file's passphrase", keyMaterial: true),
            VaultVariable("VAULT_PASSPHRASE_FILE", "a file holding the passphrase (mode 600)", keyMaterial: true),
            VaultVariable("VAULT_SCRYPT_WORK_FACTOR", "log2 of scrypt's N for new passphrase files (default 18)"),
            VaultVariable(
                "VAULT_UNLOCK_TTL", "how long the kernel keeps a file key after a prompt (default 15m, 0 off)"),
            VaultVariable("VAULT_UNLOCK_SCOPE", "session (default: this login) or user (all your processes)"),
        ]
        + destinationUnlock.map { VaultVariable($0, "the destination's key for migrate and rekey", keyMaterial: true) }
        + [
            VaultVariable("VAULT_FALLBACK", "a store that secrets are moved out of as they are read"),
            VaultVariable("VAULT_REFRESH_SKEW", "refresh a living token this many seconds early (default 60)"),
            VaultVariable(
                "VAULT_REFRESH_ORIGINS", "token endpoint origins refreshes may go to without a local approval"),
            VaultVariable("VAULT_ALLOW_HTTP", "1 allows plain http token endpoints and BAO_ADDR on other machines"),
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
