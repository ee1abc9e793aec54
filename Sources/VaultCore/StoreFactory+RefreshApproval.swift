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
        var origins = Set<String>()
        for entry in (value("VAULT_REFRESH_ORIGINS") ?? "").split(separator: ",") {
            let text = entry.trimmingSpaces
            if text.isEmpty { continue }
            guard let entry = TokenURL.listEntry(text) else {
                throw VaultError(
                    .usage, "VAULT_REFRESH_ORIGINS holds '\(HTTPURL.origin(of: text))'",
                    remedy: .giveAccepted(
                        forms:
                            "origins separated by commas, e.g. https://oauth2.example.com, or an origin and a path prefix, e.g. https://login.example.com/tenant"
                    ))
            }
            origins.insert(entry)
        }
        return RefreshApproval(
            directory: stateDirectory().map { $0 + "/refresh-approvals" }, origins: origins,
            commandsFile: configDirectory().map { $0 + "/refresh-commands" }, allowHTTP: try allowsPlainHTTP())
    }

    /// `VAULT_ALLOW_HTTP`: `1` lets tokens go over plain http to another machine (OAuth token
    /// endpoints and `BAO_ADDR` alike); unset or `0` does not; anything else is a usage error.
    func allowsPlainHTTP() throws(VaultError) -> Bool {
        switch value("VAULT_ALLOW_HTTP") {
        case nil, "0": return false
        case "1": return true
        case let text?:
            throw VaultError(
                .usage, "VAULT_ALLOW_HTTP is '\(text)'",
                remedy: .giveAccepted(forms: "1 to allow plain http, or no value to refuse it"))
        }
    }

    /// vault's configuration folder: `$XDG_CONFIG_HOME/vault`, or `~/.config/vault`.
    func configDirectory() -> String? { configuration.folders.vaultConfig }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
