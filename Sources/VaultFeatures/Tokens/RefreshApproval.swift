public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Which refreshes this machine allows: what is read from a store is data, never an instruction.
///
/// A living token's companion says where refreshes go (a token endpoint, with a client secret
/// read from the vault) or which command mints the next token. Anyone who can write the store (a
/// teammate or intruder rewriting a team age file, a write-only OpenBao token, any program on the
/// session bus) can write a companion, so a companion alone never makes a reader send anything
/// or run anything. A refresh goes ahead only when its target was approved on this machine:
///
/// - recorded here (``RefreshApprovalRecord``) by `vault oauth import`/`login`, `vault set
///   --refresh-command` or `vault trust NAME`, and unchanged since: origin, token URL, client ID,
///   client secret name, or command; where a record exists, it alone decides;
/// - or, with no record, for OAuth, its token endpoint's origin (or origin and path prefix) is
///   in `VAULT_REFRESH_ORIGINS` and it sends no
///   client secret but the conventional one, `NAME.client-secret` (see ``conventionalClientSecretName(of:)``);
/// - or, with no record, for a command, the command is in the user's ``RefreshCommandList``.
///
/// Plain `http://` token endpoints that are not on this machine are refused unless ``allowHTTP``
/// (`VAULT_ALLOW_HTTP=1`). See docs/tokens.md, "Approving refreshes", and docs/design.md.
public struct RefreshApproval: Sendable {
    /// Where records are kept; nil: nothing is recorded (and only the lists approve).
    public var directory: String?
    /// `VAULT_REFRESH_ORIGINS`: origins (``TokenURL/origin``), or origins with a path prefix
    /// (``TokenURL/listEntry(_:)``, matched by ``lists(_:)``).
    public var origins: Set<String>
    /// The user's refresh command list, if a path for it is known.
    public var commandsFile: String?
    /// `VAULT_ALLOW_HTTP=1`: token endpoints over plain http to other machines are allowed.
    public var allowHTTP: Bool

    public init(directory: String?, origins: Set<String> = [], commandsFile: String? = nil, allowHTTP: Bool = false) {
        self.directory = directory
        self.origins = origins
        self.commandsFile = commandsFile
        self.allowHTTP = allowHTTP
    }

    /// Approves nothing: a vault made without approvals refreshes no token.
    public static let none = RefreshApproval(directory: nil)

    /// Where a living token's refresh stands on this machine.
    public enum State: Equatable, Sendable {
        /// Recorded here and unchanged.
        case recorded
        /// Its origin is in `VAULT_REFRESH_ORIGINS`.
        case listedOrigin
        /// Its command is in the refresh command list.
        case listedCommand
        /// Not approved; the reason, for a message (no secret).
        case notApproved(String)
        /// Approved here once, and the store now says something else; what changed.
        case changed(String)

        public var isApproved: Bool {
            switch self {
            case .recorded, .listedOrigin, .listedCommand: true
            case .notApproved, .changed: false
            }
        }
    }

    /// The client secret name a token's companion may name without a record of its own:
    /// `NAME.client-secret`. A store writer can then only have a token's own client secret sent,
    /// and only to an origin the machine lists, never an arbitrary secret such as a password.
    public static func conventionalClientSecretName(of name: SecretName) -> String {
        name.account + ".client-secret"
    }

    /// Where the refresh of `name` by `companion` stands for `store`.
    public func state(of companion: TokenCompanion, for name: SecretName, in store: any SecretStore) -> State {
        guard let current = RefreshApprovalRecord(companion) else {
            return .notApproved("its token URL is not a plain http(s) URL")
        }
        let recorded = directory.flatMap {
            RefreshApprovalRecord.read(
                directory: $0, fileName: RefreshApprovalRecord.fileName(name, storeKey: Self.storeKey(store)))
        }
        if recorded == current { return .recorded }
        // A record decides: the lists serve only a machine that has none for this token, or a
        // store writer could repoint an approved token to a listed origin (another tenant of a
        // shared login service) and have its client secret sent there.
        if let recorded { return .changed(RefreshApprovalRecord.change(from: recorded, to: current)) }
        var reason: String
        switch (companion.source, current.target) {
        case (.oauth(let client), .oauth(let origin, _, _, _)):
            if let url = TokenURL(client.tokenURL), lists(url) {
                guard let secretName = client.clientSecretName,
                    secretName != Self.conventionalClientSecretName(of: name)
                else { return .listedOrigin }
                reason =
                    "it would send the client secret '\(secretName)' to \(origin), which VAULT_REFRESH_ORIGINS lists but only with '\(Self.conventionalClientSecretName(of: name))'"
            } else {
                reason = "it would send tokens to \(origin), which was not approved on this machine"
            }
        case (.command(let command), _):
            switch commandsFile.map({ RefreshCommandList(path: $0).lists(command) }) {
            case .listed: return .listedCommand
            case .ignored(let why): reason = "its refresh command was not approved on this machine (\(why))"
            case .notListed, nil: reason = "its refresh command was not approved on this machine"
            }
        default:
            reason = "it was not approved on this machine"
        }
        return .notApproved(reason)
    }

    /// Throws `.damaged` unless the refresh of `name` by `companion` may run now: the one check a
    /// refresh makes before it sends a request or runs a command. On the file backend, the vault
    /// file's recipients are checked first (``HeaderTrust``): the refreshed tokens are written to
    /// them.
    func check(_ companion: TokenCompanion, for name: SecretName, in store: any SecretStore) throws(VaultError) {
        try Self.guarded(store)?.checkBeforeRefresh(of: name)
        let state = state(of: companion, for: name, in: store)
        let account = name.account
        let nothing = companion.isCommand ? "nothing was run" : "nothing was sent"
        switch state {
        case .recorded, .listedOrigin, .listedCommand:
            // Approved, but plain http to another machine still needs VAULT_ALLOW_HTTP here.
            if case .oauth(let client) = companion.source { try checkTransport(client.tokenURL, of: name) }
        case .notApproved(let reason):
            throw VaultError(
                .damaged, "'\(account)' is not refreshed: \(reason); \(nothing)",
                remedy: .trustRefresh(account: account, orListOrigin: listable(companion, for: name)))
        case .changed(let change):
            throw VaultError(
                .damaged,
                "'\(account)' is not refreshed: its refresh target changed since it was approved on this machine (\(change)); \(nothing)",
                remedy: .trustRefresh(account: account, orListOrigin: false))
        }
    }

    /// Whether listing the companion's origin in `VAULT_REFRESH_ORIGINS` would approve the refresh
    /// of `name`: OAuth, an origin not listed yet, and no client secret but the conventional one.
    private func listable(_ companion: TokenCompanion, for name: SecretName) -> Bool {
        guard case .oauth(let client) = companion.source, let url = TokenURL(client.tokenURL) else { return false }
        let secretName = client.clientSecretName
        return !lists(url)
            && (secretName == nil || secretName == Self.conventionalClientSecretName(of: name))
    }

    /// Whether `VAULT_REFRESH_ORIGINS` lists `url`: its origin, or its origin with a path prefix
    /// that ends at one of the URL's `/` (`https://login.example/tenant-a` lists
    /// `https://login.example/tenant-a/oauth2/token`, not `.../tenant-ab/token`). A prefix
    /// matches only a path libcurl sends as written: no `.` or `..` segment (which it would
    /// resolve, `/tenant-a/../tenant-b/token`) and no percent-encoding.
    public func lists(_ url: TokenURL) -> Bool {
        if origins.contains(url.origin) { return true }
        let segments = url.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !segments.contains(where: { $0 == "." || $0 == ".." || $0.contains("%") }) else { return false }
        var prefix = url.origin
        for segment in segments {
            prefix += "/" + String(segment)
            if origins.contains(prefix) { return true }
        }
        return false
    }

    /// Throws unless `url` is a plain http(s) URL (``TokenURL``) that sends nothing in clear to
    /// another machine (or ``allowHTTP``). For `oauth import`/`login` (`.usage`) and refreshes.
    public func checkURL(_ url: String, what: String, code: VaultError.Code = .usage) throws(VaultError) {
        guard let parsed = TokenURL(url) else {
            throw VaultError(
                code,
                "the \(what) is not a plain http(s) URL (a host name or address, a port, no user information)"
            )
        }
        if parsed.isPlainHTTP, !parsed.isLoopback, !allowHTTP {
            throw VaultError(
                code,
                "the \(what) \(parsed.origin) is plain http: tokens would cross the network in clear",
                remedy: .useHTTPS)
        }
    }

    private func checkTransport(_ url: String, of name: SecretName) throws(VaultError) {
        do {
            try checkURL(url, what: "token endpoint", code: .damaged)
        } catch {
            throw VaultError(
                error.code, "'\(name.account)' is not refreshed, nothing was sent: \(error.message)",
                remedy: error.remedy)
        }
    }

    /// Records `companion` as approved for `name` in `store` on this machine.
    func record(_ companion: TokenCompanion, for name: SecretName, in store: any SecretStore) throws(VaultError) {
        guard let record = RefreshApprovalRecord(companion) else {
            throw VaultError(.usage, "the token URL of '\(name.account)' is not a plain http(s) URL")
        }
        guard let directory else {
            throw VaultError(
                .usage, "no state folder to record the approval in",
                remedy: .setVariable(oneOf: ["XDG_STATE_HOME", "HOME"]))
        }
        // Root writing with a user's HOME (`sudo -E`) leaves no root-owned folder there, which
        // would stop the user's own records (as with header trust); saying so beats an approval
        // that silently is not there.
        guard FileSystem.ownerOfNearestExisting(directory) == geteuid() else {
            throw VaultError(
                .other, "cannot record the approval of '\(name.account)': \(directory) belongs to another user")
        }
        try record.write(
            directory: directory, fileName: RefreshApprovalRecord.fileName(name, storeKey: Self.storeKey(store)))
    }

    /// What names a store in records (``StoreIdentity/recordKey``); a fallback store is its
    /// primary (where refreshed tokens are written).
    static func storeKey(_ store: any SecretStore) -> String { store.identity.recordKey }

    /// The store refreshed tokens are written to, if it checks itself before a refresh.
    private static func guarded(_ store: any SecretStore) -> (any RefreshGuardedStore)? {
        store.capability((any RefreshGuardedStore).self)
    }
}

extension TokenCompanion {
    fileprivate var isCommand: Bool {
        if case .command = source { return true }
        return false
    }
}
