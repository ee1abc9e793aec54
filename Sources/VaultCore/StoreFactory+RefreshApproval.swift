public import VaultFeatures
public import VaultStorage
import VaultSystem

/// The glue for refresh approvals (``RefreshApproval``, docs/tokens.md): where records and the
/// command list live, and the variables a machine that did not create a token approves it with.
extension StoreFactory {
    /// Records in `$XDG_STATE_HOME/vault/refresh-approvals` (default
    /// `~/.local/state/vault/refresh-approvals`), the command list
    /// `$XDG_CONFIG_HOME/vault/refresh-commands` (default `~/.config/vault/refresh-commands`),
    /// `VAULT_REFRESH_ORIGINS` (comma-separated origins, each optionally with a path prefix) and `VAULT_ALLOW_HTTP` (`1` or unset).
    public func refreshApproval() throws(VaultError) -> RefreshApproval {
        let origins = try configuration.refreshOrigins.get()
        return RefreshApproval(
            directory: stateDirectory().map { $0 + "/refresh-approvals" }, origins: origins,
            commandsFile: configDirectory().map { $0 + "/refresh-commands" }, allowHTTP: try allowsPlainHTTP())
    }

    /// `VAULT_ALLOW_HTTP`: `1` lets tokens go over plain http to another machine (OAuth token
    /// endpoints and `BAO_ADDR` alike); unset or `0` does not; anything else is a usage error.
    func allowsPlainHTTP() throws(VaultError) -> Bool {
        try configuration.allowsPlainHTTP.get()
    }

    /// vault's configuration folder: `$XDG_CONFIG_HOME/vault`, or `~/.config/vault`.
    func configDirectory() -> String? { configuration.folders.vaultConfig }
}
