import VaultAge
import VaultOpenBao
import VaultSecretService
public import VaultStorage
import VaultSystem

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
        let path = try factory.filePath()
        var file = Backend(kind: .file, usable: true, detail: path)
        if FileSystem.exists(path) {
            if let bytes = try? FileSystem.readRegularFile(path, limit: 1 << 30),
                let types = try? Age.stanzaTypes(of: bytes)
            {
                file.detail += " (exists, encrypted to \(Self.describe(types)))"
            } else {
                file.usable = false
                file.detail += " (exists, but is not a readable age file)"
            }
        } else {
            file.detail += " (not created yet)"
            file.createdOnFirstWrite = true
        }
        file.detail += "; unlocked with \(Self.unlockSource(factory.configuration.fileKeys))"

        var secretService = Backend(
            kind: .secretService, usable: true, detail: "a Secret Service answers on the session bus")
        let probe = factory.secretServiceProbe()
        switch probe {
        case .usable:
            // The probe only looks; a provider can answer it and still fail every transfer.
            if let problem = factory.secretServiceRoundTripProblem() {
                secretService.usable = false
                secretService.detail = "a provider answers but cannot be used"
                secretService.problem = problem
            }
        case .absent(let problem):
            secretService.usable = false
            secretService.detail = ""
            secretService.problem = problem
        case .unusable(let problem):
            secretService.usable = false
            secretService.detail = "a provider is there but cannot be used now"
            secretService.problem = problem
        }
        var present = true
        if case .absent = probe { present = false }
        let owner = present ? factory.secretServiceProvider() : nil
        if let owner {
            secretService.provider = owner.name + (owner.note.map { " (\($0))" } ?? "")
        }
        vaultProvider = VaultProviderState(
            owner: owner.map { RunningProvider(name: $0.name, isVault: $0.isVault) },
            activation: try? factory.providerActivation())
        // One row per store kind, in the table's order; OpenBao's only when it is named or chosen.
        backends = BackendKind.stores.compactMap { (kind) -> Backend? in
            switch kind {
            case .file: file
            case .secretService: secretService
            case .openbao: Self.openbao(factory)
            case .auto: nil
            }
        }

        let resolved = try factory.resolvedBackend(probe: probe)
        chosen = resolved.kind
        reason = resolved.reason
    }

    /// The OpenBao backend, when it is chosen or BAO_ADDR/VAULT_ADDR names a server.
    private static func openbao(_ factory: StoreFactory) -> Backend? {
        let named = factory.configuration.openBao.address != nil
        guard named || (try? factory.requestedBackend()) == .openbao else { return nil }
        do throws(VaultError) {
            let (usable, detail) = try factory.makeOpenBaoStore().diagnose()
            return Backend(kind: .openbao, usable: usable, detail: detail)
        } catch {
            return Backend(kind: .openbao, usable: false, detail: "", problem: error)
        }
    }

    /// Whether the chosen backend is usable.
    public var chosenUsable: Bool { backends.first { $0.kind == chosen }?.usable ?? false }

    private static func describe(_ types: [StanzaType]) -> String {
        StanzaType.describe(types)
    }

    private static func unlockSource(_ variables: Configuration.FileKeyVariables) -> String {
        if let name = variables.first { return name }
        return "a passphrase typed at the terminal (none of \(VaultVariables.unlock.joined(separator: ", ")) is set)"
    }
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
