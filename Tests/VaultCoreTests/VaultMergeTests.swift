import Testing
import VaultAge

@testable import VaultCore

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
}
