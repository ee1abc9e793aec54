import VaultAgeFile
import VaultCore
import VaultFeatures
import VaultStorage

extension CommandSpec {
    static let trust = CommandSpec(
        name: "trust", operands: "[NAME]", operandCompletion: .secretName,
        summary: "accept the vault file's changed recipients, or approve a living token's refresh target",
        details: """
            Without NAME: vault remembers, under $XDG_STATE_HOME/vault (default ~/.local/state/vault),
            the age header you last wrote the vault file with. If someone else replaces the file with one
            encrypted to other recipients (a teammate's rekey, or an intruder who added their own key),
            'set', 'rm', 'import', 'migrate' into it and the refresh of a living token stop with exit 6,
            since new secrets would go to those recipients too; 'get' of a secret that needs no refresh and
            'ls' still work. Check who changed the file, then run 'vault trust' to accept its current
            recipients. 'vault init' and 'vault rekey' remember the header they write; the first write to
            a file vault has not seen before trusts it. Needs no key.
            With NAME (any backend): shows the refresh target of the living token NAME as the store now
            holds it (the token endpoint's origin, the client ID and the client secret's name, or the
            refresh command) and approves it on this machine. A read refreshes a living token only when
            this machine approved its target: 'vault oauth import', 'vault oauth login' and 'vault set
            --refresh-command' approve what they store, VAULT_REFRESH_ORIGINS approves token endpoint
            origins (with no client secret but NAME.client-secret), and
            $XDG_CONFIG_HOME/vault/refresh-commands lists commands. Anything else, or a target that
            changed since it was approved, is exit 6 with nothing sent and nothing run, because anyone
            who can write the store could have put it there. Check it with 'vault show NAME' first.
            See docs/tokens.md.
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            if let account = try invocation.operands(0...1).first {
                return try trustRefresh(invocation, name: try invocation.factory.name(account))
            }
            guard try invocation.factory.resolvedBackend().kind != .secretService else {
                throw VaultError(
                    .usage,
                    "'vault trust' without NAME is about a vault file's recipients; use --backend file, or give NAME")
            }
            let store = try invocation.factory.makeFileStore()
            let types = try store.trustCurrentHeader()
            StandardIO.error("trusted the recipients of \(store.path): \(HeaderTrust.describe(types))")
            return ExitStatus.success
        })

    /// `vault trust NAME`: approves the refresh target the store holds for NAME and says what it is.
    private static func trustRefresh(_ invocation: Invocation, name: SecretName) throws(VaultError) -> Int32 {
        let summary = try invocation.vault().trustRefresh(of: name)
        let target: String
        if summary.kind == "command" {
            target = "the refresh command \(summary.command ?? "")"
        } else {
            let origin: String = summary.tokenURL.flatMap { TokenURL($0)?.origin } ?? "?"
            let client: String = summary.clientID ?? ""
            var text = "refreshes at \(origin) as the client '\(client)'"
            if let secret = summary.clientSecretName { text += ", sending the client secret '\(secret)'" }
            target = text
        }
        // StandardIO.error turns control characters from the store into '?'.
        StandardIO.error("approved on this machine for '\(name.account)': \(target)")
        return ExitStatus.success
    }
}
