import VaultOpenBao
import VaultStorage

extension BackendDescriptor {
    /// An OpenBao (or HashiCorp Vault) server's KV v2 store, named by `BAO_ADDR`.
    static let openbao = BackendDescriptor(
        argument: nil,
        makeStore: { (factory, _, _) throws(VaultError) in try factory.makeOpenBaoStore() },
        identity: { (factory, _) throws(VaultError) in try factory.openBaoSettings().identity },
        diagnose: { (factory, _) throws(VaultError) in openBaoRow(factory) })

    /// OpenBao's row, when it is chosen or BAO_ADDR/VAULT_ADDR names a server.
    private static func openBaoRow(_ factory: StoreFactory) -> Diagnosis.Backend? {
        let named = factory.configuration.openBao.address != nil
        guard named || (try? factory.requestedBackend()) == .openbao else { return nil }
        do throws(VaultError) {
            let (usable, detail) = try factory.makeOpenBaoStore().diagnose()
            return Diagnosis.Backend(kind: .openbao, usable: usable, detail: detail)
        } catch {
            return Diagnosis.Backend(kind: .openbao, usable: false, detail: "", problem: error)
        }
    }
}
