public import VaultStorage

/// Where a cached file key is kept (`VAULT_UNLOCK_SCOPE`).
public enum UnlockScope: String, Sendable, CaseIterable {
    /// The login's session keyring, readable only by processes that possess it: the commands and
    /// scripts of this login, not another SSH login, a cron job or a new `keyctl session`.
    case session
    /// The user keyring, which every process of the user can reach (like gpg-agent).
    case user
}

/// What the glue decided about caching unlocked file keys, from the configuration read once.
public struct UnlockPolicy: Sendable, Equatable {
    /// How long a key cached after a prompt lives, in seconds (`VAULT_UNLOCK_TTL`); 0 caches
    /// nothing implicitly. The time runs from the unlock: using the key does not extend it.
    public var seconds: Int64
    public var scope: UnlockScope
    /// Whether keys may be stored at all: never in CI (reading one cached earlier stays allowed).
    public var mayStore: Bool

    /// The default `VAULT_UNLOCK_TTL`: 15 minutes.
    public static let defaultSeconds: Int64 = 15 * 60
    /// The longest time a key may be cached (`VAULT_UNLOCK_TTL`, `vault unlock --for`): 12 hours,
    /// a working day.
    public static let maximumSeconds: Int64 = 12 * 3600

    public init(seconds: Int64 = defaultSeconds, scope: UnlockScope = .session, mayStore: Bool = true) {
        self.seconds = seconds
        self.scope = scope
        self.mayStore = mayStore
    }
}

extension UnlockPolicy {
    /// Parses a duration: seconds (`900`) or a number and a unit as `--expires-in` takes it
    /// (`90s`, `15m`, `2h`); 0 only when `allowingZero`; at most ``maximumSeconds``. `what`
    /// names the input in the usage error.
    public static func seconds(parsing text: String, what: String, allowingZero: Bool) throws(VaultError) -> Int64 {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var count = Int64(text)
        if count == nil, let unit = text.last, let scale = units[unit], let number = Int64(text.dropLast()),
            number >= 0, number <= maximumSeconds
        {
            count = number * scale
        }
        guard let count, count >= (allowingZero ? 0 : 1), count <= maximumSeconds else {
            let zero = allowingZero ? "0 (off) or " : ""
            throw VaultError(
                .usage, "\(what) is '\(text)'",
                remedy: .giveAccepted(forms: "\(zero)a duration up to 12h, like 900, 90s, 15m or 2h"))
        }
        return count
    }
}
