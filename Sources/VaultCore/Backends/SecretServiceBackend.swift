import VaultSecretService
import VaultStorage

extension BackendDescriptor {
    /// The desktop keyring (or vault's own provider) through the Secret Service.
    static let secretService = BackendDescriptor(
        argument: nil,
        makeStore: { (factory, _, _) throws(VaultError) in try factory.makeSecretServiceStore() },
        identity: { (_, _) throws(VaultError) in SecretServiceStore.sessionIdentity },
        diagnose: { (factory, found) throws(VaultError) in secretServiceRow(factory, found) })

    /// The Secret Service's row: whether a provider answers, and can be used, and which it is.
    private static func secretServiceRow(_ factory: StoreFactory, _ found: DiagnosisContext) -> Diagnosis.Backend {
        var row = Diagnosis.Backend(
            kind: .secretService, usable: true, detail: "a Secret Service answers on the session bus")
        switch found.probe {
        case .usable:
            // The probe only looks; a provider can answer it and still fail every transfer.
            if let problem = factory.secretServiceRoundTripProblem() {
                row.usable = false
                row.detail = "a provider answers but cannot be used"
                row.problem = problem
            }
        case .absent(let problem):
            row.usable = false
            row.detail = ""
            row.problem = problem
        case .unusable(let problem):
            row.usable = false
            row.detail = "a provider is there but cannot be used now"
            row.problem = problem
        }
        if let owner = found.owner {
            row.provider = owner.name + (owner.note.map { " (\($0))" } ?? "")
        }
        return row
    }
}
