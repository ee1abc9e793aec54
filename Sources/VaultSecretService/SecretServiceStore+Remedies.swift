import VaultStorage

extension SecretServiceStore {
    /// Runs one operation, and again after each remedy its failure calls for, each remedy at most
    /// once: when the session's key exchange failed, a fresh session; when the keyring is locked,
    /// an unlock if that needs no one (or, with a prompt time-out, someone answers the provider's
    /// dialog); when the provider holds items back for the user's approval (KeePassXC), its
    /// approval dialog, only with a prompt time-out.
    func performUnlocking<T>(
        _ action: String, findings: Findings = Findings(), _ body: (SecretServiceCall) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        var remedied = Set<Remedy>()
        while true {
            do {
                return try perform(action, findings: findings, body)
            } catch {
                // The failure stays recorded for the caller unless a remedy is applied.
                guard let failure = findings.failure, try remedy(failure, &remedied, action) else { throw error }
                findings.record(nil)
            }
        }
    }

    /// Applies the remedy that a failure's findings call for, unless it was applied already;
    /// whether the operation may work now.
    private func remedy(_ failure: SecretServiceFailure, _ remedied: inout Set<Remedy>, _ action: String)
        throws(VaultError) -> Bool
    {
        switch failure {
        case .brokenSession where remedied.insert(.freshSession).inserted:
            SecretServiceCall.resetSession()
            return true
        case .lockedKeyring where remedied.insert(.unlock).inserted:
            return unlockDefaultKeyring(action)
        case .unapprovedItems(let paths) where !paths.isEmpty && promptTimeout != nil:
            guard let promptTimeout, remedied.insert(.approval).inserted else { return false }
            try askApproval(of: paths, action, promptTimeout: promptTimeout)
            return true
        default:
            return false
        }
    }

    /// What ``performUnlocking(_:findings:_:)`` may do once between two attempts.
    enum Remedy { case freshSession, unlock, approval }

    /// Unlocks the default keyring through the provider's prompt; whether it is unlocked now.
    /// With no one to answer, the prompt is run only where it completes without anyone (KWallet
    /// with its wallet open), so it gets the operation's whole time-out: a shorter wait ran out on
    /// a loaded machine, and libsecret, dismissing a prompt as it completed, printed a GLib critical.
    private func unlockDefaultKeyring(_ action: String) -> Bool {
        let wait = promptTimeout ?? timeout
        let unlocked = try? perform("unlocking the keyring while \(action)", timeout: wait) {
            call throws(VaultError) -> Bool in
            let service = try call.service()
            guard let collection = try call.defaultCollection(service) else { return false }
            guard collection.isLocked else { return true }
            // With no one to answer, ask only a provider that unlocks without a dialog: KWallet
            // with the wallet already open (at login, by kwallet-pam). Other providers would
            // show a dialog that no one answers.
            if promptTimeout == nil {
                let pid = (try? call.providerProcessID()) ?? 0
                guard case .some(.kWallet(let daemon)) = SecretServiceProvider(pid: pid),
                    try call.kWalletIsOpen(collection, daemon: daemon)
                else { return false }
            }
            return try call.unlock(collection, service)
        }
        return unlocked == true
    }

    /// Runs one operation under one deadline of `timeout` seconds (or of `seconds`), loading
    /// libsecret first if no operation has (`.unavailable` with the loader's reason).
    func perform<T>(
        _ action: String, findings: Findings = Findings(), timeout seconds: Double? = nil,
        _ body: (SecretServiceCall) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        try SecretServiceCall.load(library)
        return try SecretServiceCall.withDeadline(seconds ?? self.timeout, action: action, findings: findings, body)
    }
}

/// What an operation's failures said, for the caller to act on: the Secret Service is absent
/// (`VaultError.isAbsence`), an object vanished under it (`VaultError.isVanished`), the keyring
/// is locked (so unlocking may help), or the session's key exchange failed (a fresh one may work).
final class Findings {
    /// The last failure recorded, or nil.
    private(set) var failure: SecretServiceFailure?

    /// Records why the operation is failing (nil: for no reason a remedy could act on).
    func record(_ failure: SecretServiceFailure?) { self.failure = failure }

    /// Whether `expected` was recorded; if so it is cleared (the caller has handled it).
    func take(_ expected: SecretServiceFailure) -> Bool {
        guard failure == expected else { return false }
        failure = nil
        return true
    }
}

/// Why a Secret Service operation failed, as far as a remedy or the caller can act on it.
enum SecretServiceFailure: Equatable {
    /// No Secret Service at all (``VaultError/isAbsence(_:step:)``): `auto` may use the file.
    case absent
    /// An object went away under the operation (``VaultError/isVanished(_:)``).
    case vanished
    /// The keyring is locked: unlocking may help.
    case lockedKeyring
    /// The session's key exchange failed: a fresh session may work.
    case brokenSession
    /// The provider holds these items back until the user approves vault, in an unlocked
    /// keyring (KeePassXC's "confirm access").
    case unapprovedItems([String])
}
