import VaultCore

extension CommandSpec {
    static let trust = CommandSpec(
        name: "trust", operands: "",
        summary: "accept the vault file's current recipients after someone else changed them",
        details: """
            vault remembers, under $XDG_STATE_HOME/vault (default ~/.local/state/vault), the age header
            you last wrote the vault file with. If someone else replaces the file with one encrypted to
            other recipients (a teammate's rekey, or an intruder who added their own key), 'set', 'rm',
            'import' and 'migrate' into it stop with exit 6, since new secrets would go to those
            recipients too; 'get' and 'ls' still work. Check who changed the file, then run 'vault trust'
            to accept its current recipients. 'vault init' and 'vault rekey' remember the header they
            write; the first write to a file vault has not seen before trusts it. Needs no key.
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            guard try invocation.factory.resolvedBackend() != .secretService else {
                throw VaultError(.usage, "'vault trust' is about a vault file's recipients; use --backend file")
            }
            let store = try invocation.factory.makeFileStore()
            let types = try store.trustCurrentHeader()
            StandardIO.error("trusted the recipients of \(store.path): \(HeaderTrust.describe(types))")
            return ExitStatus.success
        })
}
