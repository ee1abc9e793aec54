public import VaultStorage

/// Moves secrets from one store to another so that none is ever lost, and so that running the
/// same migration again after an interruption finishes the job.
///
/// For each secret the order is: write it to the destination, read it back and compare value and
/// metadata, and only then delete it from the source (and only if the source still holds the
/// value that was copied). A secret the destination already holds with the same value and
/// expiry is skipped, and still deleted from the source, since it is safely there. That is the
/// rerun rule: whatever point a run was interrupted at, each secret is in the source, in both
/// stores with the same value, or in the destination; a rerun skips and deletes the second kind
/// and copies the first.
///
/// A secret the destination holds with a different value or expiry is a conflict. Conflicts are
/// all found before anything is written: unless `overwrite` is set, ``run()`` then changes
/// nothing at all.
///
/// Secrets go over in chunks. When a store offers ``SecretBatchStore``, a chunk is written,
/// read back or deleted in one step; the other store still sees one operation per secret.
public final class Migration {
    /// What happens to one secret.
    public enum Action: String, Sendable, Equatable {
        /// The destination does not have it: copy it.
        case copy
        /// The destination has the same value and expiry: leave that copy as it is.
        case skip
        /// The destination has a different value or expiry: stop, unless overwriting.
        case conflict
        /// A conflict that `overwrite` resolves by replacing the destination's secret.
        case overwrite
    }

    /// One secret's entry in the plan.
    public struct Step: Sendable, Equatable {
        /// The secret.
        public var name: SecretName
        /// What happens to it.
        public var action: Action
    }

    /// What a migration covers and how it treats conflicts and the source.
    public struct Options: Sendable, Equatable {
        /// The service to migrate, or `nil` for every service.
        public var service: String?
        /// Replace secrets the destination holds with a different value or expiry.
        public var overwrite: Bool
        /// Leave the source as it is.
        public var keepSource: Bool
        /// The most secrets copied before they are deleted from the source.
        public var chunkCount: Int
        /// About the most value bytes copied before they are deleted from the source.
        public var chunkBytes: Int

        /// Options for one service (or every service when `service` is nil); chunks hold at
        /// least one secret.
        public init(
            service: String?, overwrite: Bool = false, keepSource: Bool = false, chunkCount: Int = 100,
            chunkBytes: Int = 16 << 20
        ) {
            self.service = service
            self.overwrite = overwrite
            self.keepSource = keepSource
            self.chunkCount = max(1, chunkCount)
            self.chunkBytes = chunkBytes
        }
    }

    /// What a run has done so far; after a failure, how far it got.
    public struct Progress: Sendable, Equatable {
        /// Secrets written to the destination and verified there (overwritten ones included).
        public var migrated = 0
        /// Of ``migrated``, those that replaced a different value.
        public var overwritten = 0
        /// Secrets the destination already held with the same value.
        public var skipped = 0
        /// Secrets deleted from the source.
        public var removedFromSource = 0
        /// Secrets left in the source because they changed there during the migration.
        public var changedInSource: [SecretName] = []
    }

    /// The store secrets come from.
    public let source: any SecretStore
    /// The store secrets go to.
    public let destination: any SecretStore
    /// What the migration covers and how it treats conflicts and the source.
    public let options: Options
    /// What the current or last ``run()`` did.
    public private(set) var progress = Progress()

    /// Called as secrets are done (copied and verified, or skipped) with how many of how many:
    /// the tool may draw a progress line from it. The library never prints.
    public var onProgress: ((_ done: Int, _ total: Int) -> Void)?

    private var planned: [(step: Step, record: SecretRecord)]?
    private var total = 0

    /// A migration from `source` to `destination`; nothing is read before ``plan()`` or ``run()``.
    public init(from source: any SecretStore, to destination: any SecretStore, options: Options) {
        self.source = source
        self.destination = destination
        self.options = options
    }

    /// Reads both stores and decides what happens to each secret in scope, sorted by name.
    /// Changes nothing.
    public func plan() throws(VaultError) -> [Step] {
        let records = try sourceRecords()
        let present = try destinationRecords(for: records)
        var plan: [(step: Step, record: SecretRecord)] = []
        for record in records {
            let action: Action
            if let there = present[record.name] {
                action = there.isSameSecret(as: record) ? .skip : options.overwrite ? .overwrite : .conflict
            } else {
                action = .copy
            }
            plan.append((Step(name: record.name, action: action), record))
        }
        planned = plan
        return plan.map(\.step)
    }

    /// Carries out the plan (making it first if ``plan()`` was not called).
    ///
    /// Throws `.conflict` without changing anything if the plan has conflicts; throws
    /// `.conflict` at the end if secrets changed in the source meanwhile (they are kept there).
    /// After any error, ``progress`` tells how far it got, and running again finishes the job.
    public func run() throws(VaultError) {
        if planned == nil { _ = try self.plan() }
        let plan = planned ?? []
        planned = nil
        progress = Progress()
        total = plan.count
        let conflicts = plan.filter { $0.step.action == .conflict }.map(\.step.name)
        if !conflicts.isEmpty {
            throw VaultError(
                .conflict,
                "\(conflicts.count) of the secrets differ in \(destination.label); nothing was changed",
                remedy: .overwriteMigrated)
        }
        var start = plan.startIndex
        while start < plan.endIndex {
            var end = start
            var bytes = 0
            while end < plan.endIndex, end - start < options.chunkCount, end == start || bytes < options.chunkBytes {
                bytes += plan[end].record.value.count
                end += 1
            }
            let chunk = plan[start..<end]
            try copy(chunk.filter { $0.step.action != .skip }.map { ($0.record, $0.step.action == .overwrite) })
            progress.skipped += chunk.filter { $0.step.action == .skip }.count
            reportProgress()
            if !options.keepSource { try removeFromSource(chunk.map(\.record)) }
            start = end
        }
        if !progress.changedInSource.isEmpty {
            throw VaultError(
                .conflict,
                "\(progress.changedInSource.count) secrets changed in \(source.label) during the migration and were "
                    + "kept there, for another run of the migration to compare", remedy: .retry)
        }
    }

    // MARK: - Steps

    private func sourceRecords() throws(VaultError) -> [SecretRecord] {
        if let batch = source as? any SecretBatchStore { return try batch.readAll(service: options.service) }
        var records: [SecretRecord] = []
        for entry in try source.list(service: options.service) {
            // A secret deleted since the listing is simply not migrated.
            if let record = try source.read(entry.name) { records.append(record) }
        }
        return records
    }

    /// The destination's secrets with the names of `records`. Read one by one unless the store
    /// reads in batches: a listing is not trusted to say what is absent.
    private func destinationRecords(for records: [SecretRecord]) throws(VaultError) -> [SecretName: SecretRecord] {
        var present: [SecretName: SecretRecord] = [:]
        if let batch = destination as? any SecretBatchStore {
            let wanted = Set(records.map(\.name))
            for record in try batch.readAll(service: options.service) where wanted.contains(record.name) {
                present[record.name] = record
            }
            return present
        }
        for record in records {
            present[record.name] = try destination.read(record.name)
        }
        return present
    }

    /// Writes the records to the destination and checks each one by reading it back.
    private func copy(_ items: [(record: SecretRecord, overwrite: Bool)]) throws(VaultError) {
        guard !items.isEmpty else { return }
        if let batch = destination as? any SecretBatchStore {
            try batch.write(items.map(\.record))
            var back: [SecretName: SecretRecord] = [:]
            for record in try batch.readAll(service: options.service) { back[record.name] = record }
            for item in items { try verified(item, back[item.record.name]) }
        } else {
            for item in items {
                try destination.write(item.record)
                try verified(item, try destination.read(item.record.name))
            }
        }
    }

    private func verified(_ item: (record: SecretRecord, overwrite: Bool), _ back: SecretRecord?) throws(VaultError) {
        guard let back, back == item.record else {
            let what = back == nil ? "did not find it" : "read back a different value or metadata"
            throw VaultError(
                .damaged,
                "\(destination.label) \(what) after writing '\(item.record.name)'; it was not deleted from the source")
        }
        progress.migrated += 1
        if item.overwrite { progress.overwritten += 1 }
        reportProgress()
    }

    private func reportProgress() {
        onProgress?(progress.migrated + progress.skipped, total)
    }

    /// Deletes the records from the source unless they changed there since they were read.
    private func removeFromSource(_ records: [SecretRecord]) throws(VaultError) {
        if let batch = source as? any SecretBatchStore {
            let removed = try batch.deleteUnchanged(records)
            progress.removedFromSource += removed.count
            for record in records where !removed.contains(record.name) {
                // Gone from the source is fine (it is in the destination); changed is kept.
                if let current = try source.read(record.name), !current.isSameSecret(as: record) {
                    progress.changedInSource.append(record.name)
                }
            }
            return
        }
        for record in records {
            guard let current = try source.read(record.name) else { continue }
            guard current.isSameSecret(as: record) else {
                progress.changedInSource.append(record.name)
                continue
            }
            if try source.delete(record.name) { progress.removedFromSource += 1 }
        }
    }
}
