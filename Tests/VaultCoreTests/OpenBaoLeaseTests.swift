import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultOpenBao
@testable import VaultStorage

/// The refresh lease of the OpenBao store (Backends/OpenBao/OpenBaoStore+Lease.swift) against a real dev
/// server: check-and-set takes and releases, the lease's place beside the token and out of every
/// listing, and the companion's check-and-set write.
@Suite("OpenBao refresh lease")
struct OpenBaoLeaseTests {
    @Test("a lease is taken by one writer of a version only, released, and never listed")
    func takeAndRelease() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let plain = try SecretName(service: "s", account: "ci/token")
        let escaped = try SecretName(service: "s", account: "a//b")
        #expect(OpenBaoStore.leasePath(of: plain) == "vault/s/_vault64_lease/ci/token")
        for name in [plain, escaped] {
            try store.write(
                SecretRecord(
                    name: name, value: [1],
                    metadata: SecretMetadata(
                        created: Timestamp(secondsSince1970: 1), updated: Timestamp(secondsSince1970: 1))))
            let free = try store.readLease(name)
            #expect(free == StoredRefreshLease(version: 0, holder: nil))
            let mine = RefreshLeaseHolder(holder: "one", site: "here", expires: 1_900_000_000_000)
            let taken = try #require(try store.writeLease(name, mine, ifVersion: free.version))
            // A second machine that read the same version loses.
            let theirs = RefreshLeaseHolder(holder: "two", site: "there", expires: 1_900_000_000_000)
            #expect(try store.writeLease(name, theirs, ifVersion: free.version) == nil)
            #expect(try store.readLease(name) == StoredRefreshLease(version: taken, holder: mine))
            let released = try #require(try store.writeLease(name, nil, ifVersion: taken))
            #expect(try store.readLease(name) == StoredRefreshLease(version: released, holder: nil))
            // A release against a version that is no longer current changes nothing.
            #expect(try store.writeLease(name, nil, ifVersion: taken) == nil)
        }
        for service in [nil, "s"] {
            #expect(try store.list(service: service).map(\.name.account) == ["a//b", "ci/token"])
        }
        // A lease deleted by hand reads as free, at the version it had: the next take replaces it.
        let deleted = try server.bao(["kv", "delete", "-mount=\(mount)", "vault/s/_vault64_lease/ci/token"])
        try #require(deleted.status == 0, "\(deleted.stderr)")
        let after = try store.readLease(plain)
        #expect(after.holder == nil && after.version > 0)
        #expect(try store.writeLease(plain, nil, ifVersion: after.version) != nil)
    }

    @Test("a lease that ends further ahead than any lease can last is over (one written for the year 9999)")
    func unboundedLease() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let name = try SecretName(service: "s", account: "gh")
        // Written by a store writer, not by vault: the largest RFC 3339 time, in milliseconds.
        let written = try server.bao([
            "kv", "put", "-mount=\(mount)", OpenBaoStore.leasePath(of: name), "holder=planted", "site=elsewhere",
            "expires=253402300799000",
        ])
        try #require(written.status == 0, "\(written.stderr)")
        let planted = try #require(try store.readLease(name).holder)
        #expect(planted.expires == 253_402_300_799_000)
        #expect(RefreshLease.isOver(planted, site: "here"))
        // A live holder's lease, even at the longest VAULT_TIMEOUT, is not over.
        var longest = planted
        longest.expires = RefreshLease.nowMilliseconds() + Int64(TokenSettings.longestLeaseSeconds * 1000)
        #expect(!RefreshLease.isOver(longest, site: "here"))
    }

    @Test("a versioned write lands only on the version read")
    func versionedWrite() throws {
        let server = try OpenBaoDevServer.shared()
        let mount = try server.freshMount()
        defer { server.dropMount(mount) }
        let store = OpenBaoStore.testStore(server, mount: mount)
        let name = try SecretName(service: "s", account: ".vault-token/gh")
        let time = SecretMetadata(created: Timestamp(secondsSince1970: 1), updated: Timestamp(secondsSince1970: 1))
        try store.write(SecretRecord(name: name, value: Array("first".utf8), metadata: time))
        let (record, version) = try #require(try store.readVersioned(name))
        #expect(record.value == Array("first".utf8) && version == 1)
        #expect(try store.write(SecretRecord(name: name, value: Array("second".utf8), metadata: time), ifVersion: 1))
        #expect(!(try store.write(SecretRecord(name: name, value: Array("stale".utf8), metadata: time), ifVersion: 1)))
        #expect(try store.readVersioned(name)?.record.value == Array("second".utf8))
        #expect(try store.readVersioned(name)?.version == 2)
    }
}
