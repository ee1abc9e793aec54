import VaultAgeFile
import VaultCore
import VaultStorage

extension UnlockDiagnosis {
    /// The `unlock` line of `vault doctor`.
    var wording: String {
        var parts: [String] = []
        if let problem {
            parts.append("off: \(problem.wording); every command asks as usual")
        } else if let policy {
            let ttl =
                policy.seconds == 0 ? "off after a prompt (VAULT_UNLOCK_TTL=0)" : "\(policy.seconds)s after a prompt"
            parts.append("works, \(policy.scope.rawValue) scope, \(ttl)")
            if !policy.mayStore { parts.append("CI is set: nothing is cached, a key cached earlier is used") }
        }
        switch session {
        case .own?: parts.append("this login has a session keyring of its own")
        case .userSession?:
            parts.append(
                "this login has no session keyring of its own (it shares the user-session keyring, as SSH logins and cron jobs do where PAM runs no pam_keyinit): a session-scope unlock gives the calling shell its own"
            )
        case .otherUser?:
            parts.append(
                "the session keyring belongs to another user (sudo, su): a session-scope key cannot outlive the command here (user scope works)"
            )
        case nil: break
        }
        if let until = fileUnlockedUntil {
            parts.append("the vault file is unlocked until \(until.rfc3339)")
        } else if problem == nil {
            parts.append("the vault file is not unlocked")
        }
        return "unlock".padding(to: 16) + parts.joined(separator: "; ")
    }
}
