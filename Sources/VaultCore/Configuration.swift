import VaultAgeFile
import VaultStorage
import VaultSystem

/// Everything vault takes from its surroundings, read once from the environment the tool hands
/// over, into one typed value the glue factory receives (as swift-configuration reads all its
/// providers into one `ConfigReader`).
///
/// Each rule that several places used to repeat (where the runtime folder is, what `CI` means,
/// `VAULT_TIMEOUT`'s range) is written here once. Every `VAULT_*` and `BAO_*` variable is read
/// here and nowhere else, by the names ``VaultVariables`` declares, into a typed field; a value
/// that does not parse is kept as its usage error and thrown where it is used, so a command that
/// does not need it never fails on it.
public struct Configuration: Sendable {
    /// The variables as the tool read them, for the programs vault starts (`vault exec`, a
    /// refresh command, an age plugin), which get them less key material. Nothing outside
    /// Configuration looks a variable up in it (ConfigurationSourceTests).
    public let environment: [String: String]
    /// The user's folders (XDG base directories and `HOME`).
    public let folders: Folders
    /// Whether a CI system runs vault: then nothing ever waits for a person.
    public let isCI: Bool
    /// Whether the tool found a person who can answer: standard input and standard error are
    /// terminals. Decided by the tool, which owns the terminal; the library never asks `isatty`.
    public let atTerminal: Bool
    /// Whether a display is set (`DISPLAY` or `WAYLAND_DISPLAY`): a keyring may show a dialog.
    public let hasDisplay: Bool
    /// `DBUS_SESSION_BUS_ADDRESS`, when set.
    public let sessionBusAddress: String?
    /// The proxy variables (`https_proxy`, `no_proxy`...), for every HTTP client the glue makes.
    let proxies: HTTPProxy.Variables
    /// `VAULT_TIMEOUT`, parsed once; its usage error is thrown where a timeout is needed, so a
    /// command that waits for nothing never fails on it.
    let timeout: Parsed<Double>
    /// `VAULT_PROMPT_TIMEOUT`, parsed once; used (and its error thrown) only where someone can
    /// answer a dialog.
    let promptTimeout: Parsed<Double>
    /// `VAULT_UNLOCK_TTL` and `VAULT_UNLOCK_SCOPE`, parsed once; their usage error is thrown
    /// where a vault file is opened.
    let unlock: Parsed<UnlockPolicy>
    /// `VAULT_SERVICE`, as given (checked where a name is made).
    let service: String?
    /// `VAULT_BACKEND`, parsed; nil when unset.
    let backend: Parsed<BackendKind>?
    /// `VAULT_FILE`.
    let file: String?
    /// `VAULT_SCRYPT_WORK_FACTOR`, parsed (default 18).
    let scryptWorkFactor: Parsed<Int>
    /// `VAULT_FALLBACK`, parsed; nil when unset.
    let fallback: Fallback?
    /// `VAULT_REFRESH_SKEW`, parsed (default ``TokenSettings/defaultRefreshSkew``).
    let refreshSkew: Parsed<Int64>
    /// `VAULT_REFRESH_ORIGINS`, parsed into list entries.
    let refreshOrigins: Parsed<Set<String>>
    /// `VAULT_ALLOW_HTTP`, parsed.
    let allowsPlainHTTP: Parsed<Bool>
    /// `VAULT_IDENTITY`, `VAULT_IDENTITY_FILE`, `VAULT_PASSPHRASE`, `VAULT_PASSPHRASE_FILE`.
    let fileKeys: FileKeyVariables
    /// The same for a destination file (`VAULT_TO_*`).
    let destinationFileKeys: FileKeyVariables
    /// The `BAO_*` variables, else their `VAULT_*` aliases, and the Actions id-token pair: read
    /// from ``environment`` when asked for, so that a command on another backend never parses
    /// them (a fifth of the configuration's start-up work).
    var openBao: OpenBaoVariables { OpenBaoVariables(environment: environment) }
    /// `PATH`, where age plugins are looked for.
    let searchPath: String?
    /// `TMPDIR`, when it holds an absolute path.
    let temporaryFolder: String?
    /// `XDG_DATA_DIRS`, the system's data folders.
    let dataDirectories: String?

    /// The Secret Service and OpenBao timeout used when `VAULT_TIMEOUT` is not set, in seconds.
    public static let defaultTimeout = 5.0
    /// The wait for a person at a keyring's dialog when `VAULT_PROMPT_TIMEOUT` is not set, in seconds.
    public static let defaultPromptTimeout = 120.0

    /// Reads `environment` (the tool's one copy of it); `atTerminal` is the tool's answer to
    /// whether a person can answer prompts (stdin and stderr are terminals).
    public init(environment: [String: String], atTerminal: Bool = false) {
        func value(_ name: String) -> String? { Self.value(name, in: environment) }
        func value(_ variable: VaultVariable) -> String? { Self.value(variable, in: environment) }
        self.environment = environment
        self.folders = Folders(
            runtime: Folders.absolute(value("XDG_RUNTIME_DIR")), state: Folders.absolute(value("XDG_STATE_HOME")),
            config: Folders.absolute(value("XDG_CONFIG_HOME")), data: Folders.absolute(value("XDG_DATA_HOME")),
            cache: Folders.absolute(value("XDG_CACHE_HOME")), home: value("HOME"))
        self.isCI = Self.isCI(value("CI"))
        self.atTerminal = atTerminal
        self.hasDisplay = value("DISPLAY") != nil || value("WAYLAND_DISPLAY") != nil
        self.sessionBusAddress = value("DBUS_SESSION_BUS_ADDRESS")
        self.proxies = HTTPProxy.Variables(environment: environment)
        self.timeout = Self.seconds(value(.timeout), default: Self.defaultTimeout, variable: .timeout, example: "2.5")
        self.promptTimeout = Self.seconds(
            value(.promptTimeout), default: Self.defaultPromptTimeout, variable: .promptTimeout, example: "120")
        self.unlock = Self.unlockPolicy(ttl: value(.unlockTTL), scope: value(.unlockScope), isCI: isCI)
        self.service = value(.service)
        self.backend = value(.backend).map { (text) in
            Parsed { () throws(VaultError) in try BackendKind(parsing: text, from: Self.backendInput) }
        }
        self.file = value(.file)
        self.scryptWorkFactor = Self.workFactor(value(.scryptWorkFactor))
        self.fallback = value(.fallback).map(Fallback.init(text:))
        self.refreshSkew = Self.refreshSkew(value(.refreshSkew))
        self.refreshOrigins = Self.refreshOrigins(value(.refreshOrigins))
        self.allowsPlainHTTP = Self.allowsPlainHTTP(value(.allowHTTP))
        self.fileKeys = FileKeyVariables(names: VaultVariables.unlock, in: environment)
        self.destinationFileKeys = FileKeyVariables(names: VaultVariables.destinationUnlock, in: environment)
        self.searchPath = value("PATH")
        self.temporaryFolder = Folders.absolute(value("TMPDIR"))
        self.dataDirectories = value("XDG_DATA_DIRS")
    }

    /// The unlock cache's policy: `VAULT_UNLOCK_TTL` (default 15 minutes, 0 off),
    /// `VAULT_UNLOCK_SCOPE` (`session`, the default, or `user`), and never storing in CI.
    private static func unlockPolicy(ttl: String?, scope: String?, isCI: Bool) -> Parsed<UnlockPolicy> {
        Parsed { () throws(VaultError) in
            let seconds = try ttl.map { (text) throws(VaultError) in
                try UnlockPolicy.seconds(parsing: text, what: VaultVariable.unlockTTL.name, allowingZero: true)
            }
            var chosen = UnlockScope.session
            if let scope {
                guard let parsed = UnlockScope(rawValue: scope) else {
                    throw VaultError(
                        .usage, "\(VaultVariable.unlockScope.name) is '\(scope)'",
                        remedy: .giveAccepted(forms: "session or user"))
                }
                chosen = parsed
            }
            return UnlockPolicy(seconds: seconds ?? UnlockPolicy.defaultSeconds, scope: chosen, mayStore: !isCI)
        }
    }

    /// `name`'s value in `environment`: nil when it is unset or empty (empty counts as unset).
    static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// `variable`'s value in `environment`, as ``value(_:in:)``.
    static func value(_ variable: VaultVariable, in environment: [String: String]) -> String? {
        value(variable.name, in: environment)
    }

    /// The one rule for `CI`: set to anything but empty, `0` or `false` (in any case). CI systems
    /// set `CI=true`; `CI=0` and `CI=false` say "not CI", as a person would mean them.
    public static func isCI(_ text: String?) -> Bool {
        guard let text else { return false }
        return !["", "0", "false"].contains(text.lowercased())
    }

    /// Whether vault may ask on the terminal (`/dev/tty`) for a passphrase or a value: not in CI.
    public var allowsPrompts: Bool { !isCI }

    /// Whether someone can answer a keyring's unlock or approval dialog: a person at the
    /// terminal, on a display, outside CI.
    public var canAnswerDialogs: Bool { atTerminal && hasDisplay && !isCI }

    /// Seconds between 0 (excluded) and 3600 in `text`, `fallback` when it is not set.
    private static func seconds(
        _ text: String?, default fallback: Double, variable: VaultVariable, example: String
    ) -> Parsed<Double> {
        guard let text else { return .success(fallback) }
        guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
            return .failure(
                VaultError(
                    .usage, "\(variable.name) is '\(text)'",
                    remedy: .giveAccepted(forms: "seconds between 0 and 3600, e.g. \(example)")))
        }
        return .success(seconds)
    }
}

extension Configuration {
    /// The user's folders. An XDG variable counts only when it holds an absolute path (the XDG
    /// base directory specification says to ignore a relative one); `nil` means "not given".
    public struct Folders: Sendable, Equatable {
        /// `XDG_RUNTIME_DIR`: the session bus socket, refresh locks, journals, token caches.
        public var runtime: String?
        /// `XDG_STATE_HOME`.
        public var state: String?
        /// `XDG_CONFIG_HOME`.
        public var config: String?
        /// `XDG_DATA_HOME`.
        public var data: String?
        /// `XDG_CACHE_HOME`.
        public var cache: String?
        /// `HOME`, when set and not empty (the default vault file needs it even when relative).
        public var home: String?

        public init(
            runtime: String? = nil, state: String? = nil, config: String? = nil, data: String? = nil,
            cache: String? = nil, home: String? = nil
        ) {
            self.runtime = runtime
            self.state = state
            self.config = config
            self.data = data
            self.cache = cache
            self.home = home
        }

        static func absolute(_ path: String?) -> String? {
            guard let path, path.hasPrefix("/") else { return nil }
            return path
        }

        /// vault's state folder: `$XDG_STATE_HOME/vault`, or `~/.local/state/vault`.
        public var vaultState: String? { state.map { $0 + "/vault" } ?? home.map { $0 + "/.local/state/vault" } }

        /// vault's configuration folder: `$XDG_CONFIG_HOME/vault`, or `~/.config/vault`.
        public var vaultConfig: String? { config.map { $0 + "/vault" } ?? home.map { $0 + "/.config/vault" } }

        /// vault's runtime folder, `$XDG_RUNTIME_DIR/vault`: nil without a runtime folder.
        public var vaultRuntime: String? { runtime.map { $0 + "/vault" } }
    }
}
