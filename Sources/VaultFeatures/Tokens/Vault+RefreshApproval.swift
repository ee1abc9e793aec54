public import VaultStorage

/// Approving living tokens' refreshes on this machine (``RefreshApproval``, docs/tokens.md).
extension Vault {
    private var approval: RefreshApproval { tokens?.approval ?? .none }

    /// Records that this machine approves refreshing `name` as `companion` says: what
    /// `oauth import`, `oauth login` and `set --refresh-command` do before they store the token.
    /// Throws `.usage` for a token URL that is not plain http(s), or plain http to another
    /// machine without `VAULT_ALLOW_HTTP=1`.
    public func approveRefresh(of name: SecretName, companion: TokenCompanion) throws(VaultError) {
        if case .oauth(let client) = companion.source {
            try approval.checkURL(client.tokenURL, what: "token endpoint")
        }
        try approval.record(companion, for: name, in: store)
    }

    /// Approves the refresh target the store now holds for `name` (`vault trust NAME`) and returns
    /// it. Throws `.notFound` when `name` is not a living token.
    public func trustRefresh(of name: SecretName) throws(VaultError) -> TokenSummary {
        guard let companion = try companion(of: name) else {
            if try store.read(name) == nil { throw VaultError.notFound(name) }
            throw VaultError(.notFound, "'\(name.account)' is not a living token: it has no refresh target to approve")
        }
        try approveRefresh(of: name, companion: companion)
        return companion.summary
    }

    /// Whether this machine approves the refresh of the living token `name`; nil when `name` is
    /// not a living token.
    public func refreshApproval(of name: SecretName) throws(VaultError) -> RefreshApproval.State? {
        guard let companion = try companion(of: name) else { return nil }
        return approval.state(of: companion, for: name, in: store)
    }
}
