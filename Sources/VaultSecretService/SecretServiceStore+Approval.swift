import VaultStorage
import VaultSystem

extension SecretServiceStore {
    /// Lets the provider ask its user to approve vault's access to the items at `paths`, and waits
    /// up to `promptTimeout` seconds for the answer. KeePassXC with "confirm access" reports such
    /// items as locked in an unlocked keyring and shows its access request dialog when a client
    /// calls `Unlock` on them and runs the prompt it returns. Returns once every item is approved;
    /// throws `.cannotUnlock` when the user denied or closed the dialog, or did not answer in time.
    func askApproval(of paths: [String], _ action: String, promptTimeout: Double) throws(VaultError) {
        try perform("asking to approve vault while \(action)", timeout: promptTimeout) { call throws(VaultError) in
            let service = try call.service()
            // Named first: once the deadline fires, no call can be made under it.
            let who = Self.providerName(call)
            let approved: Int
            do throws(VaultError) {
                approved = try call.unlock(paths: paths, service)
            } catch {
                guard call.deadlineExpired else { throw error }
                approved = 0
            }
            guard approved < paths.count else { return }
            if call.deadlineExpired {
                throw VaultError(
                    .cannotUnlock,
                    "no one answered \(who)'s access request within \(formatSeconds(promptTimeout)) s while \(action)",
                    remedy: .allowAccessRequest(morePromptTime: true))
            }
            throw VaultError(
                .cannotUnlock,
                "access was denied in \(who) while \(action): its access request was declined or closed",
                remedy: .allowAccessRequest(morePromptTime: false))
        }
    }

    /// The provider's name for a message, e.g. "KeePassXC".
    private static func providerName(_ call: SecretServiceCall) -> String {
        let pid = (try? call.providerProcessID()) ?? 0
        return SecretServiceProvider(pid: pid)?.name ?? "the Secret Service provider"
    }
}
