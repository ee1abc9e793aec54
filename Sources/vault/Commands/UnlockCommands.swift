import VaultAgeFile
import VaultCore
import VaultSecretService
import VaultStorage

extension CommandSpec {
    static let unlock = CommandSpec(
        name: "unlock", operands: "",
        summary: "unlock the vault file once; the kernel keeps its key for a while",
        details: """
            Opens the vault file with the usual keys (VAULT_IDENTITY, VAULT_IDENTITY_FILE, VAULT_PASSPHRASE,
            VAULT_PASSPHRASE_FILE or the terminal) and leaves its age file key, never the passphrase or an
            identity, in the kernel keyring for DURATION (default VAULT_UNLOCK_TTL, 15m; at most 12h).
            Until then, every command on this file uses it instead of asking. The time runs from now:
            use does not extend it. VAULT_UNLOCK_SCOPE=session (default) keeps it for this login only,
            user for all of the user's processes. Exit 2 in CI (CI set: keys are never cached there),
            5 if the kernel refuses (a seccomp filter, the key quota).
            Where vault is the Secret Service on this user's session bus ('vault secret-service'), the key
            is also handed to that provider over the bus, and only to a provider of this user running
            this vault program, which takes it only for the file it serves.
            """,
        options: [
            OptionSpec(
                .duration, value: "DURATION",
                "keep the key for DURATION: seconds, or a number and s, m or h (90s, 15m, 2h)")
        ],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            guard try invocation.factory.resolvedBackend().kind == .file else {
                throw VaultError(.usage, "'vault unlock' unlocks a vault file (use --backend file)")
            }
            let store = try invocation.factory.makeFileStore()
            let cache = try invocation.factory.fileKeyCache()
            var seconds = cache.policy.seconds
            if let text = invocation.value(.duration) {
                seconds = try UnlockPolicy.seconds(parsing: text, what: "--for", allowingZero: false)
            } else if seconds == 0 {
                throw VaultError(.usage, "VAULT_UNLOCK_TTL is 0 (caching is off); give --for DURATION")
            }
            guard store.exists else { throw VaultError(.notFound, "no vault file at \(store.path)") }
            var handedOver: VaultProviderControl.Outcome?
            try store.unlock(seconds: seconds) { (key) throws(VaultError) in
                StandardIO.error("unlocked \(store.path) for \(seconds)s (\(cache.policy.scope.rawValue) scope)")
                handedOver = try invocation.factory.unlockVaultProvider(fileKey: key, seconds: seconds)
            }
            if case .done(let pid) = handedOver {
                StandardIO.error("unlocked vault's Secret Service provider (pid \(pid)) for the same file")
            }
            return ExitStatus.success
        })

    static let lock = CommandSpec(
        name: "lock", operands: "",
        summary: "forget every cached vault key now",
        details: """
            Removes every vault file key this process can reach from the kernel keyring: the session
            keyring's and the user keyring's, and locks vault's Secret Service provider on this user's
            session bus, if it is the provider. Exits 0 also when there was none.
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let count = try FileKeyCache.forgetAll()
            StandardIO.error(count == 1 ? "forgot 1 cached key" : "forgot \(count) cached keys")
            if case .done(let pid) = try invocation.factory.lockVaultProvider() {
                StandardIO.error("locked vault's Secret Service provider (pid \(pid))")
            }
            return ExitStatus.success
        })
}
