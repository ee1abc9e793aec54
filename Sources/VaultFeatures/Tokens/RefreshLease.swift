import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One refresh at a time across the machines that share a store (``SecretLeaseStore``): the
/// lease of a living token, taken with check-and-set before its token endpoint is called (or its
/// refresh command run) and released once the new token is stored (docs/tokens.md).
///
/// It is taken under the token's ``RefreshLock``, so the processes of one machine queue on the
/// `flock` and only one per machine asks the store. The lease records when it ends
/// (``leaseSeconds``, by the holder's clock): a holder that dies blocks the others until then,
/// and no longer; a process of the holder's own site (the same lock folder on the same boot)
/// that holds the `flock` knows the holder is gone and takes the lease over at once.
struct RefreshLease {
    let store: any SecretLeaseStore
    let name: SecretName
    /// This process, as it signs the lease (``RefreshLeaseHolder/expires`` is set when taken).
    let holder: String
    let site: String
    let settings: TokenSettings

    init(store: any SecretLeaseStore, name: SecretName, settings: TokenSettings) {
        self.store = store
        self.name = name
        self.settings = settings
        holder =
            String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt64.random(in: .min ... .max), radix: 16)
        site = Self.site(of: settings.lockDirectory.map { RefreshLock.leaseSiteFile($0, name, store: store) })
    }

    /// A lease this process holds: the version it wrote and when it ends.
    struct Held {
        var version: Int
        var expires: Int64
    }

    /// What waiting for the lease ended with.
    enum Outcome {
        /// This process holds the lease: it reads the token again, and refreshes it if still due.
        case taken(Held)
        /// Another machine refreshed the token meanwhile: this is the token it stored.
        case settled(SecretRecord)
    }

    /// Takes the lease, waiting while a live holder on another machine has it, within
    /// `VAULT_TIMEOUT`. Each time the lease was released or changed hands, `settled` reads the
    /// token first: a token another machine refreshed ends the wait without taking the lease.
    ///
    /// The wait polls the lease alone (one small read), with pauses that grow from 50 ms by half
    /// each time up to 1 s, each a random 50% to 100% of that: a refresh takes tens of
    /// milliseconds to a second, so a few polls see it through, and the jitter spreads a fleet's
    /// polls apart. A pause never runs past the lease's end.
    func acquire(settled: () throws(VaultError) -> SecretRecord?) throws(VaultError) -> Outcome {
        let deadline = Deadline(seconds: settings.storeRetryBudget)
        var pause = 0.05
        var changedHands = false
        var seen: StoredRefreshLease?
        while true {
            let lease = try store.readLease(name)
            if seen != nil, seen != lease { changedHands = true }
            seen = lease
            if Self.isOver(lease.holder, site: site) {
                if changedHands, let token = try settled() { return .settled(token) }
                let expires = Self.nowMilliseconds() + Int64(settings.leaseSeconds * 1000)
                let mine = RefreshLeaseHolder(holder: holder, site: site, expires: expires)
                if let version = try store.writeLease(name, mine, ifVersion: lease.version) {
                    return .taken(Held(version: version, expires: expires))
                }
                // Another machine took it first: wait for that one.
                changedHands = true
            }
            let left = Double(deadline.remainingMilliseconds) / 1000
            guard left > 0 else {
                // A holder that stored the token and died before the release leaves a fresh token.
                if let token = try settled() { return .settled(token) }
                let until = lease.holder.map { " (its lease ends at \(Self.rfc3339(milliseconds: $0.expires)))" } ?? ""
                throw VaultError(
                    .unavailable, "another machine is refreshing '\(name.account)'\(until)", remedy: .retry)
            }
            var sleep = pause * Double.random(in: 0.5...1)
            if let expires = lease.holder?.expires {
                // Wake just after the lease ends rather than a whole pause later.
                sleep = min(sleep, max(0.01, Double(expires - Self.nowMilliseconds()) / 1000 + 0.02))
            }
            OAuthClient.pause(min(sleep, left))
            pause = min(pause * 1.5, 1)
        }
    }

    /// Releases the lease if this process still holds it (check-and-set against the version it
    /// wrote). Best effort: a lease left behind ends by itself.
    func release(_ held: Held) {
        _ = try? store.writeLease(name, nil, ifVersion: held.version)
    }

    /// Whether `held` has `seconds` left: a holder that is short of time for its request does
    /// not make it, as another machine may take the lease over while it waits for the answer.
    func hasTime(_ held: Held, seconds: Double) -> Bool {
        Double(held.expires - Self.nowMilliseconds()) / 1000 >= seconds
    }

    /// Whether a lease may be taken: free, ended, held by this site, whose `flock` the caller
    /// holds (the lease is taken and released only under it, so its holder is gone), or ending
    /// further ahead than any lease can last (``longestMilliseconds``): no holder wrote that, and
    /// a lease until the year 9999 must not stop every refresh until someone deletes it.
    static func isOver(_ holder: RefreshLeaseHolder?, site: String) -> Bool {
        guard let holder else { return true }
        let now = nowMilliseconds()
        return holder.expires <= now || holder.expires - now > longestMilliseconds || holder.site == site
    }

    /// The most milliseconds ahead a live holder's lease can end: the longest lease
    /// (``TokenSettings/longestLeaseSeconds``), and five minutes for the holder's clock being
    /// ahead of this machine's.
    static let longestMilliseconds = Int64(TokenSettings.longestLeaseSeconds * 1000) + 300_000

    /// The site of a refresh lock file: a hash of the kernel's boot ID and the file's device and
    /// inode. Processes that open the same file share its `flock`; any other machine (or
    /// container with its own folder, or boot) has another site, and so has a process of this
    /// machine that names the store differently (another `BAO_ADDR`), as its lock is another file.
    static func site(of lockFile: String?) -> String {
        // Best effort: without the boot ID or the lock file's identity, the site is one of its
        // own, never matched, and only the fast takeover of a dead local holder's lease is lost.
        let identity: [UInt8]
        var info = stat()
        if let boot = try? FileSystem.read("/proc/sys/kernel/random/boot_id", limit: 64), !boot.isEmpty,
            let lockFile, case .success = valueOrErrno({ stat(lockFile, &info) })
        {
            identity = boot + Array("\(info.st_dev):\(info.st_ino)".utf8)
        } else {
            identity = Array(String(UInt64.random(in: .min ... .max)).utf8)
        }
        return identity.withUnsafeBytes { Digest.hex($0, bytes: 16) }
    }

    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    static func rfc3339(milliseconds: Int64) -> String {
        Timestamp(secondsSince1970: milliseconds / 1000).rfc3339
    }
}

extension RefreshLease {
    /// The store that holds `store`'s leases: itself, or the store it writes through to (a lazy
    /// migration's primary store, ``LayeredStore``), where the token is shared.
    static func store(in store: any SecretStore) -> (any SecretLeaseStore)? {
        store.capability((any SecretLeaseStore).self)
    }
}

extension RefreshLock {
    /// The lock file ``RefreshLock/acquire(_:store:settings:)`` locks for `name`: the caller holds
    /// it. (Were the two ever to differ, the site matches nothing and only the fast takeover of
    /// a dead local holder's lease is lost.)
    static func leaseSiteFile(_ directory: String, _ name: SecretName, store: any SecretStore) -> String {
        "\(directory)/.vault-refresh-\(key(name, store: store)).lock"
    }
}

extension TokenSettings {
    /// How long a refresh lease lasts: three times `VAULT_TIMEOUT` (the request, its retry and the
    /// store writes each end within it) and a second, so that a live holder is never overtaken.
    var leaseSeconds: Double { 3 * storeRetryBudget + 1 }

    /// The longest lease: ``leaseSeconds`` at the longest `VAULT_TIMEOUT`, 3600 s.
    static let longestLeaseSeconds: Double = 3 * 3600 + 1
}
