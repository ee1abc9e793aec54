import Foundation
import Testing
import VaultAge
import VaultTestSupport

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures
@testable import VaultStorage

/// The three-way merge of records, in-process: which side wins, what conflicts, and how the
/// times of a secret set alike on both sides merge. (GitMergeTests runs it under real git.)
@Suite("Vault merge by secret")
struct VaultMergeTests {
    static func record(
        _ account: String, _ value: String, created: Int64 = 100, updated: Int64 = 100, expires: Int64? = nil
    )
        -> SecretRecord
    {
        SecretRecord(
            name: try! SecretName(service: "vault", account: account), value: Array(value.utf8),
            metadata: SecretMetadata(
                created: Timestamp(secondsSince1970: created), updated: Timestamp(secondsSince1970: updated),
                expires: expires.map { Timestamp(secondsSince1970: $0) }))
    }

    static func byName(_ records: [SecretRecord]) -> [SecretName: SecretRecord] {
        Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) })
    }

    @Test(
        "one side's add, change, re-date and removal are taken; the same value and expiry on both sides is no conflict")
    func oneSidedChanges() {
        let base = Self.byName([
            Self.record("a", "1"), Self.record("b", "2"), Self.record("c", "3"), Self.record("d", "4"),
        ])
        let ours = Self.byName([
            Self.record("a", "1"), Self.record("b", "2", updated: 200), Self.record("c", "3"),
            Self.record("d", "4", created: 150, updated: 300), Self.record("e", "5"),
        ])
        let theirs = Self.byName([
            Self.record("b", "2"), Self.record("c", "3", expires: 900),
            Self.record("d", "4", created: 120, updated: 250),
        ])
        let (merged, conflicts) = VaultMerge.mergeRecords(base: base, ours: ours, theirs: theirs)
        #expect(conflicts.isEmpty)
        #expect(
            merged == [
                Self.record("b", "2", updated: 200), Self.record("c", "3", expires: 900),
                Self.record("d", "4", created: 120, updated: 300), Self.record("e", "5"),
            ])
    }

    @Test("different changes on both sides, and removed against changed, conflict and keep this side's record")
    func conflicts() {
        let base = Self.byName([Self.record("a", "1"), Self.record("b", "2"), Self.record("c", "3")])
        let ours = Self.byName([Self.record("a", "ours"), Self.record("c", "3", expires: 5), Self.record("n", "x")])
        let theirs = Self.byName([Self.record("a", "theirs"), Self.record("b", "changed"), Self.record("n", "y")])
        let (merged, conflicts) = VaultMerge.mergeRecords(base: base, ours: ours, theirs: theirs)
        #expect(merged == [Self.record("a", "ours"), Self.record("c", "3", expires: 5), Self.record("n", "x")])
        #expect(
            conflicts.map { "\($0.name) \($0.kind)" } == [
                "vault/a changedOnBoth", "vault/b removedHereChangedThere", "vault/c changedHereRemovedThere",
                "vault/n changedOnBoth",
            ])
    }

    @Test("the other side's new header names the SSH keys this user gave that it shows, and counts the rest")
    func recipientChangeNamesSSHKeys() throws {
        let folder = try makeTemporaryDirectory(prefix: "vault-merge")
        defer { removeTemporaryDirectory(folder) }
        func sshKey(_ name: String) throws -> any AgeRecipient {
            let path = folder.appendingPathComponent(name).path
            let made = try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path])
            #expect(made.status == 0, "ssh-keygen: \(made.stderr)")
            return try Age.parseRecipient(String(contentsOfFile: path + ".pub", encoding: .utf8))
        }
        let alice = X25519Identity.generate()
        let bob = try sshKey("bob")
        let mallory = try sshKey("mallory")
        let path = folder.appendingPathComponent("team.age").path
        let ours = try Age.encrypt(VaultDocument.encode([Self.record("a", "1")]), to: [alice.recipient, bob])
        let theirs = try Age.encrypt(
            VaultDocument.encode([Self.record("a", "1"), Self.record("b", "2")]), to: [alice.recipient, bob, mallory])
        let trust = HeaderTrust(directory: folder.appendingPathComponent("state").path)
        try trust.remember(
            header: Age.header(of: ours), types: Age.stanzaTypes(of: ours), path: path,
            recipients: [alice.recipient, bob])
        let merge = try VaultMerge.merge(
            base: ours, ours: ours, theirs: theirs, path: path, keys: .identity(alice, origin: "test"), trust: trust)
        let change = try #require(merge.recipientChange)
        #expect(change.named.contains(bob.description), "\(change.named)")
        #expect(!change.named.contains(mallory.description), "\(change.named)")
        #expect(change.named.contains("2 other stanza(s)"), "\(change.named)")
        let merged = try #require(merge.file, "the other side's new secret is merged")
        #expect(try Age.header(of: merged) == Age.header(of: ours), "the merged file keeps this side's header")
    }

    @Test("this side's header is sealed under only if this user trusts it (or has no record); else nothing is written")
    func untrustedOwnHeader() throws {
        let folder = try makeTemporaryDirectory(prefix: "vault-merge")
        defer { removeTemporaryDirectory(folder) }
        let bob = X25519Identity.generate()
        let mallory = X25519Identity.generate()
        let path = folder.appendingPathComponent("team.age").path
        // Their side added a secret under the base's header; this side is someone else's file.
        let (base, team) = try Age.encryptReturningEnvelope(
            VaultDocument.encode([Self.record("a", "1")]), to: [bob.recipient])
        let theirs = Age.seal(VaultDocument.encode([Self.record("a", "1"), Self.record("new", "2")]), envelope: team)
        let ours = try Age.encrypt(
            VaultDocument.encode([Self.record("a", "1")]), to: [bob.recipient, mallory.recipient])
        func merge(_ trust: HeaderTrust?) throws -> VaultMerge {
            try VaultMerge.merge(
                base: base, ours: ours, theirs: theirs, path: path, keys: .identity(bob, origin: "test"), trust: trust)
        }
        let trust = HeaderTrust(directory: folder.appendingPathComponent("state").path)
        // No record yet, or no state folder at all: as for a first write, this side's header is taken.
        for unrecorded in [trust, nil] {
            let merged = try #require(try merge(unrecorded).file)
            #expect(try Age.header(of: merged) == Age.header(of: ours))
        }
        try trust.remember(header: Age.header(of: base), types: Age.stanzaTypes(of: base), path: path)
        let refused = try merge(trust)
        #expect(refused.file == nil && !refused.isClean)
        #expect(refused.untrustedHeader?.change == "now 2 age public keys, you wrote it to 1 age public key, 1 added")
        try trust.remember(header: Age.header(of: ours), types: Age.stanzaTypes(of: ours), path: path)
        let accepted = try merge(trust)
        #expect(accepted.isClean && accepted.untrustedHeader == nil)
        let opened = try VaultFileVersion.open(
            #require(accepted.file), keys: .identity(mallory, origin: "test"), label: "the merged file")
        #expect(opened.records.map(\.name.account) == ["a", "new"])
    }
}
