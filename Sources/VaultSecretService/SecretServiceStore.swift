public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// A store in the desktop keyring, through the freedesktop Secret Service (gnome-keyring,
/// KeePassXC, ...) on the D-Bus session bus.
///
/// libsecret is loaded by the first operation that needs it, not linked, so vault runs where it
/// is not installed; there each such operation is `.unavailable`. A read goes without it where it
/// can (``SecretServiceDirectRead``, over sd-bus). Every operation is bounded by the time-out
/// given to ``init(timeout:)``. Without a prompt time-out the store unlocks only what
/// unlocks without asking anyone and lets no provider show a dialog: a locked keyring, or an
/// item awaiting the user's approval, is `.cannotUnlock`. With one, the provider may ask a person
/// (its unlock dialog, KeePassXC's access request).
///
/// The store and its extensions (SecretServiceStore+*.swift) decide what to do; they reach the C
/// shim only through ``SecretServiceCall``, so no GLib type or pointer reaches them.
public final class SecretServiceStore: SecretStore {
    /// The library loaded unless a test names another.
    static let defaultLibrary = "libsecret-1.so.0"

    /// libsecret's library name, loaded by ``perform(_:findings:timeout:_:)``.
    let library: String
    /// sd-bus's library name for reads that go without libsecret, or nil for none (tests).
    let directLibrary: String?

    /// Seconds an operation may take, D-Bus calls included.
    let timeout: Double
    /// Seconds to wait for a person to answer the provider's unlock dialog, or nil when no one is
    /// there to answer (then only an unlock that needs no one succeeds).
    let promptTimeout: Double?
    /// A lock file that serializes vault's writers to the Secret Service, or nil for none.
    /// Without it, two `set`s of one new name both find no item and both create one.
    let writeLock: String?
    /// For tests: runs between an update's attributes and its secret, given a function that
    /// waits until the operation's deadline has fired.
    let afterAttributes: ((_ waitForDeadline: () -> Void) -> Void)?

    /// Loads nothing and talks to no one yet: a missing library, bus or service shows on first use.
    ///
    /// - Parameter timeout: seconds each operation may take before it fails as `.unavailable`.
    /// - Parameter writeLock: a lock file (created if needed) that writers and deleters hold, so
    ///   that concurrent writers of one name leave one item.
    /// - Parameter promptTimeout: seconds to wait for a person at the provider's unlock dialog;
    ///   nil where no one can answer it.
    public convenience init(timeout: Double, writeLock: String? = nil, promptTimeout: Double? = nil) throws(VaultError)
    {
        try self.init(
            timeout: timeout, library: Self.defaultLibrary, writeLock: writeLock, promptTimeout: promptTimeout)
    }

    /// As ``init(timeout:)``, loading `library` instead of libsecret and `directLibrary` instead of
    /// sd-bus (none: every read through libsecret) (for tests).
    init(
        timeout: Double, library: String, directLibrary: String? = SecretServiceDirectRead.defaultLibrary,
        writeLock: String? = nil, promptTimeout: Double? = nil,
        afterAttributes: ((_ waitForDeadline: () -> Void) -> Void)? = nil
    ) throws(VaultError) {
        guard timeout.isFinite, timeout > 0 else {
            throw VaultError(.usage, "the Secret Service time-out must be a positive number of seconds, not \(timeout)")
        }
        self.library = library
        self.directLibrary = directLibrary
        self.timeout = timeout
        self.afterAttributes = afterAttributes
        self.writeLock = writeLock
        self.promptTimeout = promptTimeout
    }

    public var label: String { "secret-service" }

    public var identity: StoreIdentity { Self.sessionIdentity }

    /// The session's Secret Service: there is one.
    package static let sessionIdentity = StoreIdentity(recordKey: "secret-service")

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        // Over sd-bus only while that saves loading libsecret: once it is loaded (`auto` looked at
        // the Secret Service through it, or an earlier operation used it), its connection is open.
        if let direct = directLibrary, !SecretServiceCall.isLoaded {
            switch SecretServiceDirectRead.read(name, timeout: timeout, library: direct) {
            case .record(let record): return record
            case .timedOut: throw VaultError.secretServiceTimeout(action: "reading '\(name)'", timeout: timeout)
            case .unusable: break  // libsecret's path, which also says why nothing was read
            }
        }
        return try performUnlocking("reading '\(name)'") { call throws(VaultError) in
            // The key agreement overlaps the connection and the search; it is waited for (and its
            // error kept) before the secret is asked for, and in any case before this operation ends.
            let session = SessionOpening(call)
            let items = try call.search(SecretServiceItems.query(name))
            let record = try SecretServiceItems.record(name, in: items) { item throws(VaultError) in
                try session.finish()
                return try call.secret(of: item)
            }
            if let record { return record }
            if items.contains(where: \.isLocked) { throw call.lockedItems(name, items) }
            if items.isEmpty { try call.requireDefaultUnlocked(name) }
            return nil
        }
    }

    public func write(_ record: SecretRecord) throws(VaultError) {
        _ = try replace(record.name, value: record.value) { _ in record.metadata }
    }

    /// Writes as ``write(_:)`` does, in one operation: the replaced secret's metadata comes from
    /// the item found for the update (its attributes and times, as a read reports them), so its
    /// value is never read. An item whose write never finished, which a read passes over, is the
    /// one replaced here, and its metadata is the one returned.
    public func replace(
        _ name: SecretName, value: SecureBytes, metadata: (SecretMetadata?) -> SecretMetadata
    ) throws(VaultError) -> SecretMetadata? {
        let lock = try lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        return try performUnlocking("writing '\(name)'") { call throws(VaultError) -> SecretMetadata? in
            // As in a read, the key agreement overlaps the search (and an update's attributes); it
            // is waited for before the secret is written.
            let session = SessionOpening(call)
            let items = try call.search(SecretServiceItems.query(name))
            if let index = SecretServiceItems.preferred(items.map(\.candidate)) {
                let found = items[index]
                let existing = SecretServiceItems.metadata(
                    attributes: found.attributes, created: found.created, modified: found.modified, now: .now())
                let record = SecretRecord(name: name, value: value, metadata: metadata(existing))
                // Update in place: attributes first, so a failure leaves the old value. An item
                // whose write never finished is filled in this way too, not duplicated.
                let old = found.attributes
                try call.setAttributes(of: found, SecretServiceItems.merging(record, into: old))
                afterAttributes?(call.waitForDeadline)
                do throws(VaultError) {
                    try session.finish()
                    try call.setSecret(of: found, record.value)
                    try call.requireStored(record.value, at: found.path, what: "the value of '\(name)'")
                } catch {
                    // Best effort to put the old metadata back; the caller needs the first error.
                    // Under a deadline of its own: when this one ran out, its cancellable would
                    // fail the restore at once.
                    _ = try? perform("restoring the metadata of '\(name)'") { restore throws(VaultError) in
                        try restore.setAttributes(of: found, SecretServiceItems.restoring(old, over: record))
                    }
                    throw error
                }
                return existing
            }
            if !items.isEmpty { throw call.lockedItems(name, items) }
            guard let collection = try call.defaultCollection() else {
                throw VaultError(.unavailable, "the Secret Service has no default keyring to store '\(name)' in")
            }
            if collection.isLocked { throw call.lockedItems(name) }
            let service = try call.service()  // runs the prompt KeePassXC answers CreateItem with
            try session.finish()
            let record = SecretRecord(name: name, value: value, metadata: metadata(nil))
            let created = try call.createItem(
                in: collection, service, SecretServiceItems.attributes(for: record),
                label: SecretServiceItems.label(for: name), value: record.value)
            if let created {
                try call.requireCreated(
                    record.value, at: created, query: SecretServiceItems.query(name), what: "the value of '\(name)'")
            }
            return nil
        }
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        let lock = try lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        return try performUnlocking("deleting '\(name)'") { call throws(VaultError) in
            let items = try call.search(SecretServiceItems.query(name))
            if items.isEmpty {
                try call.requireDefaultUnlocked(name)
                return false
            }
            // All or nothing: a locked duplicate would reappear after a partial delete.
            if items.contains(where: \.isLocked) { throw call.lockedItems(name, items) }
            let service = try call.service()
            for item in items { try call.delete(call.proxy(service, for: item)) }
            return true
        }
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        let what = service.map { "listing service '\($0)'" } ?? "listing all services"
        return try performUnlocking(what) { call throws(VaultError) in
            let items: [SecretServiceFoundItem]
            if let service {
                items = try call.search(SecretServiceItems.query(service: service))
                if items.isEmpty { try call.requireDefaultUnlocked(nil) }
            } else {
                // Every item of every collection: KeePassXC answers a search without attributes
                // with nothing, so a search cannot list everything.
                items = try call.allItems()
            }
            if items.contains(where: \.isLocked) { throw call.lockedItems(nil, items) }
            var best: [SecretName: (entry: SecretEntry, candidate: SecretServiceItems.Candidate)] = [:]
            let now = Timestamp.now()
            for item in items {
                let attributes = item.attributes
                guard let name = SecretServiceItems.name(of: attributes),
                    service == nil || name.service == service
                else { continue }
                let candidate = item.candidate
                if let seen = best[name], SecretServiceItems.preferred([seen.candidate, candidate]) == 0 { continue }
                let metadata = SecretServiceItems.metadata(
                    attributes: attributes, created: item.created, modified: item.modified, now: now)
                best[name] = (SecretEntry(name: name, metadata: metadata), candidate)
            }
            return best.values.map(\.entry).sorted { $0.name < $1.name }
        }
    }

    /// Holds the write lock, if there is one, until the returned value is released.
    private func lockForWriting() throws(VaultError) -> LockFile? {
        guard let writeLock else { return nil }
        try FileSystem.makeDirectories(FileSystem.directory(of: writeLock))
        return try LockFile(path: writeLock)
    }
}
