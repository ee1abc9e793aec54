public import VaultSecureBytes
public import VaultStorage

/// How vault refreshes living tokens; built by the glue from the environment, read once.
public struct TokenSettings: Sendable {
    /// `VAULT_REFRESH_SKEW`: refresh a token that expires within this many seconds (default 60),
    /// but never earlier than half its lifetime before expiry.
    public var refreshSkew: Int64
    /// Where the refresh locks live: `$XDG_RUNTIME_DIR/vault`, else the vault file's directory;
    /// nil when neither is known (no `XDG_RUNTIME_DIR`, no `HOME`).
    public var lockDirectory: String?
    /// Where a refresh keeps the server's answer until the store holds it (``RefreshJournal``):
    /// `$XDG_RUNTIME_DIR/vault`, else `$XDG_STATE_HOME/vault` (`~/.local/state/vault`); nil for
    /// none (a failed store write then loses a rotated refresh token).
    public var journalDirectory: String?
    /// Seconds a store write after a refresh is retried for before the refresh fails
    /// (`VAULT_TIMEOUT`); the answer stays in the journal either way.
    public var storeRetryBudget: Double
    /// Seconds a command waits for another process's refresh of the same token (its lock), and
    /// lets a refresh command run, before it gives up (`VAULT_TIMEOUT`).
    public var waitLimit: Double = 5
    /// The environment a refresh command runs with: vault's, less the key-material variables.
    ///
    /// Made when a refresh asks for it: filtering the environment was 5% of every `get`.
    public var commandEnvironment: [String: String] {
        get { makeCommandEnvironment() }
        set { makeCommandEnvironment = { newValue } }
    }
    private var makeCommandEnvironment: @Sendable () -> [String: String]
    /// Requests to OAuth token endpoints; `nil` where vault has no HTTP layer.
    public var endpoint: (any TokenEndpoint)?
    /// Which refresh targets this machine approved (``RefreshApproval``); by default none.
    public var approval: RefreshApproval

    /// The skew used when `VAULT_REFRESH_SKEW` is not set, in seconds.
    public static let defaultRefreshSkew: Int64 = 60

    public init(
        refreshSkew: Int64 = defaultRefreshSkew, lockDirectory: String?, journalDirectory: String? = nil,
        storeRetryBudget: Double = 5, commandEnvironment: @autoclosure @escaping @Sendable () -> [String: String],
        endpoint: (any TokenEndpoint)? = nil, approval: RefreshApproval = .none
    ) {
        self.refreshSkew = refreshSkew
        self.lockDirectory = lockDirectory
        self.journalDirectory = journalDirectory
        self.storeRetryBudget = storeRetryBudget
        self.makeCommandEnvironment = commandEnvironment
        self.endpoint = endpoint
        self.approval = approval
    }

    /// The skew for one token: ``refreshSkew``, at most half of `lifetime`.
    func skew(lifetime: Int64?) -> Int64 {
        guard let lifetime else { return refreshSkew }
        return min(refreshSkew, lifetime / 2)
    }
}

/// An OAuth 2.0 token endpoint, reached through vault's HTTP layer.
public protocol TokenEndpoint: Sendable {
    /// Refreshes an access token (RFC 6749 section 6): a form-encoded POST of
    /// `grant_type=refresh_token`, with client authentication when `clientSecret` is given.
    ///
    /// Throws `.cannotUnlock` when the server rejects the grant (`invalid_grant`) and
    /// `.unavailable` when it cannot be reached or fails after a bounded retry.
    func refresh(
        _ client: OAuthClientConfiguration, refreshToken: SecureBytes, clientSecret: SecureBytes?, name: SecretName
    ) throws(VaultError) -> TokenResponse
}
