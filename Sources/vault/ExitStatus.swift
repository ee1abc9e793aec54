import VaultCore
import VaultStorage

/// The documented exit statuses (README, "Exit codes").
enum ExitStatus {
    static let success: Int32 = 0

    /// The status for each kind of failure.
    static func of(_ code: VaultError.Code) -> Int32 {
        switch code {
        case .notFound: return 1
        case .usage: return 2
        case .expired: return 3
        case .cannotUnlock: return 4
        case .unavailable: return 5
        case .damaged: return 6
        case .conflict: return 7
        case .other: return 9
        }
    }
}
