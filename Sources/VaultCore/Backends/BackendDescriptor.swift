import VaultSecretService
import VaultStorage

/// One backend as the glue knows it: how its stores are named, made and told apart, and its row
/// in `vault doctor`. With its target and its case of ``BackendKind``, its descriptor is all a
/// backend adds: the factory, `BackendSpec`, the help, the completions, `migrate` and `doctor`
/// loop over the descriptors.
struct BackendDescriptor: Sendable {
    /// What a spec may give after `NAME:` (`PATH`, another vault file), or nil: none taken.
    let argument: String?
    /// Its store, the one a spec's `argument` names (nil: the usual one); a vault file is
    /// unlocked with the key variables of `keys`.
    let makeStore:
        @Sendable (StoreFactory, _ argument: String?, _ keys: FileKeySet) throws(VaultError) -> any SecretStore
    /// What tells its stores apart (two specs naming one store are refused).
    let identity: @Sendable (StoreFactory, _ argument: String?) throws(VaultError) -> StoreIdentity
    /// Its row in `vault doctor`, or nil when it has none to show; never throws for the backend's
    /// own failure, which is the row's problem.
    let diagnose: @Sendable (StoreFactory, DiagnosisContext) throws(VaultError) -> Diagnosis.Backend?
}

/// What `vault doctor` found once for every backend's row: whether a Secret Service answers, and
/// which program owns its name.
struct DiagnosisContext {
    let probe: SecretServiceProbe
    let owner: SecretServiceProvider?
}
