public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// One-time codes: seeds stored as secrets of their own kind, codes made above the storage edge
/// (docs/design.md, "One-time codes").
extension Vault {
    /// The fewest seconds a TOTP code has left when it is handed out, unless told otherwise.
    public static let defaultMinimumValidity = 5

    /// Stores the seed of an otpauth URI as `name`, a secret of the seed's kind (replacing any
    /// secret of that name in place), and returns it. A URI that is not a well-formed seed is
    /// `.usage`, and nothing is stored.
    @discardableResult
    public func addOneTimeCode(_ name: SecretName, uri: SecureBytes) throws(VaultError) -> OneTimeCodeSeed {
        let seed = try OneTimeCodeSeed(parsing: uri)
        try set(name, value: seed.uri, kind: seed.kind)
        return seed
    }

    /// The code of the one-time code secret `name`.
    ///
    /// TOTP: the code of the current period if it stays valid for at least `minValid` seconds
    /// (at most half the period), else, after waiting for the next period, that period's code.
    /// HOTP: the code of the stored counter, which is advanced and stored before the code is
    /// returned, once per call across processes and machines (``nextCounterCode(_:)``).
    public func oneTimeCode(
        _ name: SecretName, minValid: Int = defaultMinimumValidity, clock: OneTimeCodeClock = .system
    ) throws(VaultError) -> SecureBytes {
        let seed = try Self.seed(of: current(stored(name, allowExpired: true)))
        guard seed.kind == .totp else { return try nextCounterCode(name) }
        guard minValid >= 0, minValid * 2 <= seed.period else {
            throw VaultError(
                .usage,
                "a code of '\(name.account)' can be asked to stay valid for 0 to \(seed.period / 2) seconds "
                    + "(half its period of \(seed.period) s), not \(minValid)")
        }
        while true {
            let (step, left) = seed.step(atMilliseconds: clock.now())
            if left >= Int64(minValid) * 1000 { return seed.code(counter: step) }
            // Into the next period; the loop checks again, as a sleep may end early.
            clock.sleep(left + 1)
        }
    }

    /// What `show` and `ls` say of a one-time code secret, or nil for any other secret.
    public func oneTimeCodeSummary(of record: SecretRecord) throws(VaultError) -> OneTimeCodeSummary? {
        guard record.metadata.kind?.isOneTimeCode == true else { return nil }
        return try Self.seed(of: record).summary
    }

    /// The summary of the secret `name`, for a listing: nil when it is not a one-time code secret
    /// (or is gone).
    public func oneTimeCodeSummary(_ name: SecretName) throws(VaultError) -> OneTimeCodeSummary? {
        guard let record = try store.read(name) else { return nil }
        return try oneTimeCodeSummary(of: record)
    }

    /// `record`, unless it has expired (`.expired`: a seed that has is not used).
    private func current(_ record: SecretRecord) throws(VaultError) -> SecretRecord {
        if let expires = record.metadata.expires, expires <= now() {
            throw VaultError(.expired, "'\(record.name.account)' expired at \(expires.rfc3339)")
        }
        return record
    }

    /// The seed a one-time code secret holds: `.usage` for a secret of no such kind, `.damaged`
    /// for one whose value is not the URI of its kind.
    static func seed(of record: SecretRecord) throws(VaultError) -> OneTimeCodeSeed {
        let account = record.name.account
        guard let kind = record.metadata.kind, kind.isOneTimeCode else {
            throw VaultError(
                .usage, "'\(account)' is not a one-time code secret", remedy: .addOneTimeCode(account: account))
        }
        guard let seed = try? OneTimeCodeSeed(parsing: record.value), seed.kind == kind else {
            throw VaultError(.damaged, "'\(account)' is a \(kind) secret whose value is not an otpauth://\(kind)/ URI")
        }
        return seed
    }

    /// The HOTP code of the stored counter; the counter plus one is stored first.
    ///
    /// Exactly once per counter: the read and the write run under the name's lock (the `flock`
    /// of ``RefreshLock``, which queues the processes of one machine), and on a store several
    /// machines share (``SecretLeaseStore``) the write is a check-and-set against the version
    /// read, retried from the read when another machine wrote first. No request to anyone sits
    /// between the read and the write, so the check-and-set alone keeps machines apart; the
    /// refresh lease exists for the long wait on a token endpoint, which a counter does not have.
    /// A write whose outcome is unknown fails the call: the counter may be spent, never reused.
    func nextCounterCode(_ name: SecretName) throws(VaultError) -> SecureBytes {
        guard let settings = tokens else {
            throw VaultError(.unavailable, "no lock for the counter of '\(name.account)'")
        }
        let lock = try RefreshLock.acquire(
            name, store: store, settings: settings, for: "the counter of '\(name.account)'")
        defer { withExtendedLifetime(lock) {} }
        guard let leases = RefreshLease.store(in: store) else {
            let (code, next) = try advance(try stored(name, allowExpired: true))
            try store.write(next)
            return code
        }
        let deadline = Deadline(seconds: settings.storeRetryBudget)
        var pause = 0.02
        while true {
            let versioned = try leases.readVersioned(name)
            // Absent from a lease store that a migration reads through: still in the old store,
            // and created in the new one only if no other machine did so first (version 0).
            let record: SecretRecord
            if let versioned { record = versioned.record } else { record = try stored(name, allowExpired: true) }
            let (code, next) = try advance(record)
            if try leases.write(next, ifVersion: versioned?.version ?? 0) { return code }
            guard deadline.remainingMilliseconds > 0 else {
                throw VaultError(
                    .conflict, "the counter of '\(name.account)' kept changing on other machines", remedy: .retry)
            }
            OAuthClient.pause(pause * Double.random(in: 0.5...1))
            pause = min(pause * 2, 0.5)
        }
    }

    /// The code of `record`'s counter, and the record with the counter advanced.
    private func advance(_ record: SecretRecord) throws(VaultError) -> (SecureBytes, SecretRecord) {
        var seed = try Self.seed(of: current(record))
        guard seed.kind == .hotp else { throw VaultError(.damaged, "'\(record.name.account)' is not a hotp secret") }
        // The last counter a URI can hold (a counter is below UInt64.max) is never handed out,
        // as the next one could not be stored.
        guard seed.counter < UInt64.max - 1 else {
            throw VaultError(.usage, "the counter of '\(record.name.account)' is at its largest value")
        }
        let code = seed.code(counter: seed.counter)
        seed.counter += 1
        var next = record
        next.value = seed.uri
        next.metadata.updated = now()
        return (code, next)
    }
}
