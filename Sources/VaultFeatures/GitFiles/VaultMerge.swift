public import VaultAge
public import VaultAgeFile
public import VaultStorage
import VaultSystem

/// A three-way merge of a vault file by secret, for git's merge driver (`%O %A %B %P`).
///
/// Each secret is merged on its own: one side's change (add, change, re-date, remove) is taken,
/// the same change on both sides is taken once ("same" is the same value and expiry: created
/// and updated alone never conflict), and different changes on both sides are a conflict that
/// keeps this side's version. The merged file is sealed only under a header the merging user
/// trusts for the path (``HeaderTrust``, as for writes): a header does not name its X25519
/// recipients, and a branch that added a key must not get the team's other secrets encrypted to
/// it. The other side's changed header is taken only if they accepted it; this side's header only
/// if it is the one they last wrote or accepted (a fast-forward brings in someone else's file
/// with no driver run), or they have no record for the path yet. With neither, nothing is written.
public struct VaultMerge {
    /// Why a secret could not be merged.
    public enum ConflictKind: Sendable, Equatable {
        /// Both sides changed it (or added it) differently.
        case changedOnBoth
        /// This side removed it, the other changed it.
        case removedHereChangedThere
        /// This side changed it, the other removed it.
        case changedHereRemovedThere
    }

    /// A secret left as this side has it.
    public struct Conflict: Sendable, Equatable {
        public let name: SecretName
        public let kind: ConflictKind
    }

    /// The other side's header, when it changed and is not one this user trusts.
    public struct RecipientChange: Sendable, Equatable {
        /// The stanza types of this side's header and of the other side's.
        public let ours: [StanzaType]
        public let theirs: [StanzaType]
        /// The keys this user gave for the file that the other side's header shows (an SSH
        /// stanza carries a tag of its key), and how many stanzas show none; empty when it shows none.
        public var named: String = ""
    }

    /// This side's header, when the merge would seal under it and it is not one this user trusts:
    /// then nothing is merged or written.
    public struct UntrustedHeader: Sendable, Equatable {
        /// How it differs from the header this user last wrote or accepted, e.g. "now 3 age public
        /// keys, you wrote it to 2 age public keys, 1 added", with the keys it shows.
        public let change: String
    }

    /// The merged file (nil when it is this side's file unchanged, or nothing was written).
    public let file: [UInt8]?
    /// The secrets left as this side has them, by name.
    public let conflicts: [Conflict]
    /// The other side's recipients, when they changed and were not taken.
    public let recipientChange: RecipientChange?
    /// This side's recipients, when nothing was written because this user does not trust them.
    public private(set) var untrustedHeader: UntrustedHeader? = nil

    /// Whether git may record the result as merged.
    public var isClean: Bool { conflicts.isEmpty && recipientChange == nil && untrustedHeader == nil }

    /// Merges `theirs` into `ours` with `base` as the common ancestor; an empty blob is a side
    /// that has no file. `path` is the file's path in the work tree, whose trusted headers count.
    public static func merge(
        base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String, keys: FileKeys, trust: HeaderTrust?
    ) throws(VaultError) -> VaultMerge {
        let mine = try VaultFileVersion.open(ours, keys: keys, label: "your side of \(path)")
        let known = mine.envelope.map { [$0] } ?? []
        let other = try VaultFileVersion.open(theirs, keys: keys, known: known, label: "the other side of \(path)")
        let ancestor = try VaultFileVersion.open(
            base, keys: keys, known: known + (other.envelope.map { [$0] } ?? []), label: "the merge base of \(path)")

        let (records, conflicts) = mergeRecords(base: ancestor.byName, ours: mine.byName, theirs: other.byName)

        let envelope: AgeEnvelope
        var recipientChange: RecipientChange?
        switch (mine.envelope, other.envelope) {
        case (nil, nil):
            return VaultMerge(file: [], conflicts: conflicts, recipientChange: nil)
        case (let ours?, nil):
            envelope = ours
        case (nil, let theirs?):
            // This side has no file: the other side's header is the only one there is, but it
            // is taken only if this user trusts it, like any header they did not write.
            guard try trusts(theirs, path: path, trust: trust) else {
                return VaultMerge(
                    file: nil, conflicts: conflicts,
                    recipientChange: change(ours: [], theirs: theirs, path: path, trust: trust))
            }
            envelope = theirs
        case (let ours?, let theirs?):
            let baseHeader = ancestor.envelope?.headerBytes
            if theirs.headerBytes == ours.headerBytes || theirs.headerBytes == baseHeader {
                envelope = ours
            } else if try trusts(theirs, path: path, trust: trust) {
                envelope = theirs
            } else {
                envelope = ours
                recipientChange = change(ours: ours.stanzaTypes, theirs: theirs, path: path, trust: trust)
            }
        }
        let keepsOurs = envelope.headerBytes == mine.envelope?.headerBytes
        if keepsOurs && records == mine.records {
            return VaultMerge(file: nil, conflicts: conflicts, recipientChange: recipientChange)
        }
        // A fast-forward runs no driver, so this side may be a file someone else wrote: as for a
        // write, its header must be the one this user trusts (or the first they see).
        if keepsOurs,
            let difference = try trust?.difference(of: envelope.headerBytes, types: envelope.stanzaTypes, path: path)
        {
            return VaultMerge(
                file: nil, conflicts: [], recipientChange: recipientChange,
                untrustedHeader: UntrustedHeader(change: difference))
        }
        let file = Age.seal(VaultDocument.encode(records), envelope: envelope)
        return VaultMerge(file: file, conflicts: conflicts, recipientChange: recipientChange)
    }

    /// The other side's header as a change from `ours`, naming the keys this user gave for `path`
    /// that it shows (``HeaderTrust/recognised(in:among:)``).
    private static func change(
        ours: [StanzaType], theirs: AgeEnvelope, path: String, trust: HeaderTrust?
    ) -> RecipientChange {
        var given: [String] = []
        if let trust, case .some(let record?) = try? trust.record(for: path) { given = record.recipients }
        return RecipientChange(
            ours: ours, theirs: theirs.stanzaTypes,
            named: HeaderTrust.recognised(in: theirs.headerBytes, among: given))
    }

    /// Whether `envelope`'s header is one this user accepted for `path`.
    private static func trusts(_ envelope: AgeEnvelope, path: String, trust: HeaderTrust?) throws(VaultError) -> Bool {
        guard let record = try trust?.record(for: path) else { return false }
        return record.digests.contains(Digest.hex(envelope.headerBytes))
    }

    /// The merged records, sorted by name, and the conflicts (which keep this side's record).
    static func mergeRecords(
        base: [SecretName: SecretRecord], ours: [SecretName: SecretRecord], theirs: [SecretName: SecretRecord]
    ) -> ([SecretRecord], [Conflict]) {
        var merged: [SecretRecord] = []
        var conflicts: [Conflict] = []
        for name in Set(base.keys).union(ours.keys).union(theirs.keys).sorted() {
            let (o, a, b) = (base[name], ours[name], theirs[name])
            let taken: SecretRecord?
            if a == b || o == b {
                taken = a
            } else if o == a {
                taken = b
            } else if let a, let b, a.isSameSecret(as: b) {
                // The same value and expiry on both sides: only times differ. Keep the first
                // creation and the last update.
                var record = a
                record.metadata.created = min(a.metadata.created, b.metadata.created)
                record.metadata.updated = max(a.metadata.updated, b.metadata.updated)
                taken = record
            } else {
                let kind: ConflictKind =
                    a == nil ? .removedHereChangedThere : b == nil ? .changedHereRemovedThere : .changedOnBoth
                conflicts.append(Conflict(name: name, kind: kind))
                taken = a
            }
            if let taken { merged.append(taken) }
        }
        return (merged, conflicts)
    }
}

extension VaultMerge {
    /// Runs git's merge driver on the files git passes (`%O %A %B`) and writes the merged file
    /// over `oursFile` (git's `%A`), which git then takes as the result. When it throws, nothing
    /// is written: `%A` stays this side's file, as git left it.
    public static func run(
        baseFile: String, oursFile: String, theirsFile: String, path: String, keys: FileKeys, trust: HeaderTrust?
    ) throws(VaultError) -> VaultMerge {
        func read(_ file: String) throws(VaultError) -> [UInt8] {
            guard let bytes = try FileSystem.read(file, limit: FileStore.maximumFileSize) else {
                throw VaultError(.notFound, "git's copy \(file) of \(path) is missing")
            }
            return bytes
        }
        let result = try Self.merge(
            base: try read(baseFile), ours: try read(oursFile), theirs: try read(theirsFile), path: path, keys: keys,
            trust: trust)
        if let file = result.file {
            try FileSystem.writeAtomically(
                file, directory: FileSystem.directory(of: oursFile), name: FileSystem.baseName(of: oursFile))
        }
        return result
    }
}
