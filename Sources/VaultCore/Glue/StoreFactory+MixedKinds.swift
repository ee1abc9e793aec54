import VaultAge

extension StoreFactory {
    /// age's rule for post-quantum recipients, as a usage error (exit 2) before anything is written.
    static func refuseMixedKinds(_ recipients: [any AgeRecipient], origin: String?) throws(VaultError) {
        do {
            try Age.checkPostQuantumNotMixed(recipients)
        } catch {
            throw VaultError(.usage, origin.map { "\($0): \(error.message)" } ?? error.message)
        }
    }
}
