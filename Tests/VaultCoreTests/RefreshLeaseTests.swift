import Foundation
import Synchronization
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// The refresh lease's coordinator (Features/Tokens/RefreshLease.swift) against an in-memory lease store:
/// who may take a lease, how a waiter ends, and that waiting polls with growing pauses.
@Suite("Refresh lease")
struct RefreshLeaseTests {
    /// A ``SecretLeaseStore`` in memory, safe to use from two threads, counting lease reads.
    final class MemoryLeaseStore: SecretLeaseStore, @unchecked Sendable {
        // @unchecked: every member is reached only through `state`'s lock.
        struct State {
            var records: [SecretName: (record: SecretRecord, version: Int)] = [:]
            var leases: [SecretName: StoredRefreshLease] = [:]
            var leaseReads = 0
        }
        let state = Mutex(State())
        var label: String { "memory-lease" }

        func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
            state.withLock { $0.records[name]?.record }
        }
        func write(_ record: SecretRecord) throws(VaultError) {
            state.withLock { $0.records[record.name] = (record, ($0.records[record.name]?.version ?? 0) + 1) }
        }
        func delete(_ name: SecretName) throws(VaultError) -> Bool {
            state.withLock { $0.records.removeValue(forKey: name) != nil }
        }
        func list(service: String?) throws(VaultError) -> [SecretEntry] {
            state.withLock { $0.records.values.map(\.record.entry).sorted { $0.name < $1.name } }
        }
        func readLease(_ name: SecretName) throws(VaultError) -> StoredRefreshLease {
            state.withLock {
                $0.leaseReads += 1
                return $0.leases[name] ?? StoredRefreshLease(version: 0, holder: nil)
            }
        }
        func writeLease(_ name: SecretName, _ holder: RefreshLeaseHolder?, ifVersion version: Int)
            throws(VaultError) -> Int?
        {
            state.withLock {
                guard ($0.leases[name]?.version ?? 0) == version else { return nil }
                $0.leases[name] = StoredRefreshLease(version: version + 1, holder: holder)
                return version + 1
            }
        }
        func readVersioned(_ name: SecretName) throws(VaultError) -> (record: SecretRecord, version: Int)? {
            state.withLock { $0.records[name] }
        }
        func write(_ record: SecretRecord, ifVersion version: Int) throws(VaultError) -> Bool {
            state.withLock {
                guard ($0.records[record.name]?.version ?? 0) == version else { return false }
                $0.records[record.name] = (record, version + 1)
                return true
            }
        }
    }

    let store = MemoryLeaseStore()
    let name: SecretName
    let root: URL

    init() throws {
        name = try SecretName(service: "s", account: "gh")
        root = try makeTemporaryDirectory(prefix: "vault-lease")
    }

    func lease(timeout: Double) -> RefreshLease {
        RefreshLease(
            store: store, name: name,
            settings: TokenSettings(lockDirectory: root.path, storeRetryBudget: timeout, commandEnvironment: [:]))
    }

    func hold(site: String, secondsLeft: Double) {
        let holder = RefreshLeaseHolder(
            holder: "other", site: site, expires: RefreshLease.nowMilliseconds() + Int64(secondsLeft * 1000))
        store.state.withLock { $0.leases[name] = StoredRefreshLease(version: 7, holder: holder) }
    }

    func token(_ text: String) -> SecretRecord {
        SecretRecord(
            name: name, value: Array(text.utf8),
            metadata: SecretMetadata(created: .now(), updated: .now(), expires: Timestamp.now().adding(seconds: 600)))
    }

    @Test("a free lease is taken with check-and-set and released against the version written")
    func takeAndRelease() throws {
        let lease = lease(timeout: 1)
        let before = RefreshLease.nowMilliseconds()
        guard case .taken(let held) = try lease.acquire(settled: { nil }) else {
            Issue.record("a free lease was not taken")
            return
        }
        let after = RefreshLease.nowMilliseconds()
        // 3 × the 1 s budget + 1 s from when it was taken: bounds read around the call, so a
        // stalled thread cannot make the check fail.
        #expect(held.version == 1 && held.expires >= before + 4000 && held.expires <= after + 4000)
        #expect(!lease.hasTime(held, seconds: 5))
        let anHourLeft = RefreshLease.Held(version: held.version, expires: RefreshLease.nowMilliseconds() + 3_600_000)
        #expect(lease.hasTime(anHourLeft, seconds: 3))
        #expect(try store.readLease(name).holder?.holder == lease.holder)
        lease.release(held)
        #expect(try store.readLease(name) == StoredRefreshLease(version: 2, holder: nil))
    }

    @Test("an ended lease, or one of this site (whose flock the caller holds), is taken over at once")
    func takeOver() throws {
        let lease = lease(timeout: 1)
        hold(site: "elsewhere", secondsLeft: -1)
        guard case .taken(let ended) = try lease.acquire(settled: { nil }) else {
            Issue.record("an ended lease was not taken over")
            return
        }
        #expect(ended.version == 8)
        hold(site: lease.site, secondsLeft: 60)
        guard case .taken = try lease.acquire(settled: { nil }) else {
            Issue.record("a lease of this site was not taken over")
            return
        }
    }

    @Test("a live holder elsewhere: the waiter gives up after VAULT_TIMEOUT with exit 5, polling with growing pauses")
    func liveHolder() throws {
        hold(site: "elsewhere", secondsLeft: 60)
        do {
            _ = try lease(timeout: 2).acquire(settled: { nil })
            Issue.record("a live lease was taken")
        } catch {
            #expect(error.code == .unavailable && error.message.contains("another machine is refreshing 'gh'"))
        }
        // Pauses of 50 ms growing by half up to 1 s, each at least half of that: 2 s hold at most
        // 12 polls however fast the machine (a loaded machine only sleeps longer).
        let reads = store.state.withLock { $0.leaseReads }
        #expect(reads >= 2 && reads <= 13, "\(reads) reads of the lease in 2 s")
        #expect(try store.readLease(name).holder?.holder == "other")
    }

    @Test(
        "a refresh on a lease store, and through a lazy migration into one, takes the lease, writes the companion by version, releases",
        arguments: [false, true])
    func refreshUnderLease(throughFallback: Bool) throws {
        let endpoint = LivingTokenTests.RotatingEndpoint()
        let clock = LivingTokenTests.Clock()
        let used: any SecretStore = throughFallback ? FallbackStore(primary: store, fallback: MemoryStore()) : store
        let vault = Vault(
            store: used, now: { clock.now },
            tokens: TokenSettings(
                lockDirectory: root.path, commandEnvironment: [:], endpoint: endpoint,
                // As a machine that did not store the token (VAULT_REFRESH_ORIGINS).
                approval: RefreshApproval(directory: nil, origins: ["https://auth.example"])))
        let client = OAuthClientConfiguration(tokenURL: "https://auth.example/token", clientID: "cli")
        try vault.setLiving(
            name, token: SecureBytes("access-1".utf8), expires: clock.now.adding(seconds: 600),
            companion: TokenCompanion(
                source: .oauth(client), refreshToken: SecureBytes("refresh-1".utf8), lifetime: 600))
        clock.advance(600)
        #expect(try vault.get(name).value == Array("access-2".utf8))
        #expect(try vault.companion(of: name)?.refreshToken == Array("refresh-2".utf8))
        #expect(try store.readLease(name) == StoredRefreshLease(version: 2, holder: nil), "taken and released once")
        // Fresh now: read without the lease.
        #expect(try vault.get(name).value == Array("access-2".utf8))
        #expect(try store.readLease(name).version == 2)
        #expect(endpoint.state.withLock { $0.requests.count } == 1)
    }

    @Test("a holder that stored the token and died before the release: the waiter prints that token at its timeout")
    func storedThenDied() throws {
        hold(site: "elsewhere", secondsLeft: 60)
        let fresh = token("new")
        let outcome = try lease(timeout: 0.5).acquire(settled: { fresh })
        guard case .settled(let token) = outcome else {
            Issue.record("the waiter did not read the stored token")
            return
        }
        #expect(token == fresh)
    }

    @Test("a waiter whose holder released the lease with a new token returns that token without the lease")
    func settledByAnother() throws {
        hold(site: "elsewhere", secondsLeft: 60)
        try store.write(token("old"))
        let store = self.store
        let name = self.name
        let fresh = token("new")
        let other = Thread {
            // After the waiter has seen the lease held (its first read), not after a guessed
            // 300 ms: a release before that read would let the waiter take the free lease.
            while store.state.withLock({ $0.leaseReads }) == 0 { usleep(1_000) }
            try? store.write(fresh)
            store.state.withLock { $0.leases[name] = StoredRefreshLease(version: 8, holder: nil) }
        }
        other.start()
        let outcome = try lease(timeout: 20).acquire(settled: { () throws(VaultError) -> SecretRecord? in
            let token = try store.read(name)
            return token?.value == Array("new".utf8) ? token : nil
        })
        guard case .settled(let token) = outcome else {
            Issue.record("the waiter took the lease instead of returning the stored token")
            return
        }
        #expect(token.value == Array("new".utf8))
        #expect(try store.readLease(name) == StoredRefreshLease(version: 8, holder: nil), "the lease was written")
    }
}
