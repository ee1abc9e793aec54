public import VaultStorage

/// Where a cached file key is kept (`VAULT_UNLOCK_SCOPE`).
public enum UnlockScope: String, Sendable, CaseIterable {
    /// A session keyring of this login, readable only by processes that possess it: the commands
    /// and scripts of this login, not another SSH login, a cron job or a new `keyctl session`.
    /// Where the login has none of its own (only the user's default one), vault makes one and
    /// gives it to the calling shell (``FileKeyCache``).
    case session
    /// The user keyring, which every process of the user can reach (like gpg-agent).
    case user
}

/// What the glue decided about caching unlocked file keys, from the configuration read once.
public struct UnlockPolicy: Sendable, Equatable {
    /// How long a cached key lives, in seconds (`VAULT_UNLOCK_TTL`): after a prompt, and for
    /// `vault unlock` without `--for`. 0 caches nothing after a prompt (and `vault unlock` then
    /// needs `--for`). The time runs from the unlock: using the key does not extend it.
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
    /// Parses how long to cache a key (``DurationText``'s grammar: `900`, `90s`, `15m`, `2h`);
    /// 0 only when `allowingZero`; at most ``maximumSeconds``. `what` names the input in the
    /// usage error.
    public static func seconds(parsing text: String, what: String, allowingZero: Bool) throws(VaultError) -> Int64 {
        try DurationText.seconds(parsing: text, what: what, in: (allowingZero ? 0 : 1)...maximumSeconds)
    }
}
