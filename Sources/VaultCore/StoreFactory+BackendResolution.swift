import VaultSecretService
public import VaultStorage

/// Which backend the options and environment select: `--backend`, `VAULT_BACKEND`, or `auto`
/// resolved by what is there.
extension StoreFactory {
    /// The backend asked for: `--backend`, `VAULT_BACKEND`, or `auto`.
    public func requestedBackend() throws(VaultError) -> BackendKind {
        if let flag = options.backend { return try BackendKind(parsing: flag, from: .backend) }
        if let variable = configuration.backend { return try variable.get() }
        return .auto
    }

    /// Where the requested backend was named: the option, the variable, or nowhere (`auto`).
    var requestedBackendInput: VaultError.Input? {
        options.backend != nil ? .backend : configuration.backend != nil ? Configuration.backendInput : nil
    }

    /// Resolves `auto`: the file when a file was named (`--file`, `VAULT_FILE`); else the Secret
    /// Service when a provider is there, usable or not (a locked keyring is exit 4, never a silent
    /// switch to the file); else the file. Says which rule chose it.
    public func resolvedBackend() throws(VaultError) -> ResolvedBackend {
        try resolvedBackend(probe: nil)
    }

    /// As ``resolvedBackend()``, with the Secret Service already probed (or `nil` to probe).
    func resolvedBackend(probe: SecretServiceProbe?) throws(VaultError) -> ResolvedBackend {
        let requested = try requestedBackend()
        guard requested == .auto else {
            return ResolvedBackend(requested, .requested(requested, byOption: options.backend != nil))
        }
        if options.file != nil || configuration.file != nil { return ResolvedBackend(.file, .fileNamed) }
        _ = try timeout()  // a bad VAULT_TIMEOUT is a usage error, not a reason to fall back to the file
        switch probe ?? secretServiceProbe() {
        case .usable: return ResolvedBackend(.secretService, .secretServiceAnswers)
        case .unusable: return ResolvedBackend(.secretService, .secretServiceUnusable)
        case .absent: return ResolvedBackend(.file, .noSecretService)
        }
    }

    /// Why the Secret Service cannot be used, or `nil` if it can.
    public func secretServiceProblem() -> VaultError? {
        switch secretServiceProbe() {
        case .usable: return nil
        case .absent(let problem), .unusable(let problem): return problem
        }
    }
}
