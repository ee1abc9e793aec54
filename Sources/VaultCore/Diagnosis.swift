import VaultSecretService
public import VaultStorage

/// What `vault doctor` reports: each backend, whether it is usable, and what `auto` picks.
public struct Diagnosis {
    /// One backend's state.
    public struct Backend: Sendable {
        public var kind: BackendKind
        public var usable: Bool
        /// What was found, in the library's words (empty when ``problem`` says it all).
        public var detail: String
        /// Why the backend cannot be used, when it cannot: an error whose remedy the front end
        /// words.
        public var problem: VaultError?
        /// The Secret Service provider that owns the bus name, and what to know about it.
        public var provider: String?
        /// The backend's store does not exist yet: the first secret written creates it.
        public var createdOnFirstWrite = false

        init(kind: BackendKind, usable: Bool, detail: String, problem: VaultError? = nil) {
            self.kind = kind
            self.usable = usable
            self.detail = detail
            self.problem = problem
        }
    }

    /// The rule that picked the chosen backend.
    public typealias Reason = ResolvedBackend.Reason

    public var backends: [Backend]
    /// The backend the current options and environment select.
    public var chosen: BackendKind
    /// Why that backend was chosen.
    public var reason: Reason
    /// Whether vault is the Secret Service provider (`vault secret-service enable`).
    public var vaultProvider: VaultProviderState

    /// Examines every backend. Never throws for a backend's own failure: that is the report.
    public init(factory: StoreFactory) throws(VaultError) {
        let probe = factory.secretServiceProbe()
        var present = true
        if case .absent = probe { present = false }
        let owner = present ? factory.secretServiceProvider() : nil
        vaultProvider = VaultProviderState(
            owner: owner.map { RunningProvider(name: $0.name, isVault: $0.isVault) },
            activation: try? factory.providerActivation())
        // One row per store kind, in the table's order, as its descriptor finds it.
        let found = DiagnosisContext(probe: probe, owner: owner)
        var backends: [Backend] = []
        for kind in BackendKind.stores {
            if let row = try kind.descriptor?.diagnose(factory, found) { backends.append(row) }
        }
        self.backends = backends

        let resolved = try factory.resolvedBackend(probe: probe)
        chosen = resolved.kind
        reason = resolved.reason
    }

    /// Whether the chosen backend is usable.
    public var chosenUsable: Bool { backends.first { $0.kind == chosen }?.usable ?? false }
}

/// Whether vault is the user's Secret Service provider: who owns the name now, and whether the
/// session bus would start vault (its activation file).
public struct VaultProviderState: Sendable {
    /// The program that owns `org.freedesktop.secrets` now, if any.
    public var owner: RunningProvider?
    /// vault's activation file, if there is one.
    public var vaultsFile: ProviderActivation.Found?
    /// Other activation files for the name in the user's own folders.
    public var othersForUser: [ProviderActivation.Found]

    init(owner: RunningProvider?, activation: ProviderActivation?) {
        self.owner = owner
        let found = activation?.found() ?? []
        vaultsFile = found.first { $0.isVaults }
        othersForUser = found.filter { $0.isUsers && !$0.isVaults }
    }
}
