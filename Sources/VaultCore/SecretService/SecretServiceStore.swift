import CVaultSecret
public import VaultAge

#if canImport(Glibc)
    import Glibc
#endif

/// A store in the desktop keyring, through the freedesktop Secret Service (gnome-keyring,
/// KeePassXC, ...) on the D-Bus session bus.
///
/// libsecret is loaded when the store is created, not linked, so vault runs where it is not
/// installed; then this store reports `.unavailable`. Every operation is bounded by the
/// time-out given to ``init(timeout:)``. Without a prompt time-out the store unlocks only what
/// unlocks without asking anyone and lets no provider show a dialog: a locked keyring, or an
/// item awaiting the user's approval, is `.cannotUnlock`. With one, the provider may ask a person
/// (its unlock dialog, KeePassXC's access request).
///
/// This file and its extensions (SecretServiceStore+*.swift) are the only ones that see the C shim:
/// no GLib type or pointer leaves them.
public final class SecretServiceStore: SecretStore {
    /// The library loaded unless a test names another.
    static let defaultLibrary = "libsecret-1.so.0"

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

    /// Loads libsecret. Talks to no one yet: a missing bus or service shows on first use.
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

    /// As ``init(timeout:)``, loading `library` instead of libsecret (for tests).
    init(
        timeout: Double, library: String, writeLock: String? = nil, promptTimeout: Double? = nil,
        afterAttributes: ((_ waitForDeadline: () -> Void) -> Void)? = nil
    ) throws(VaultError) {
        guard timeout.isFinite, timeout > 0 else {
            throw VaultError(.usage, "the Secret Service time-out must be a positive number of seconds, not \(timeout)")
        }
        if let reason = CVaultSecret_Load(library) {
            defer { free(reason) }
            throw VaultError(
                .unavailable, "cannot load libsecret for the Secret Service: \(String(cString: reason))")
        }
        self.timeout = timeout
        self.afterAttributes = afterAttributes
        self.writeLock = writeLock
        self.promptTimeout = promptTimeout
    }

    /// Answers quickly whether the Secret Service can be used: throws `.unavailable` with the
    /// reason (library not loadable, no session bus, no provider, no answer in time, no default
    /// keyring) or `.cannotUnlock` if the default keyring is locked.
    public static func checkAvailable(timeout: Double) throws(VaultError) {
        try checkAvailable(timeout: timeout, library: defaultLibrary)
    }

    static func checkAvailable(timeout: Double, library: String) throws(VaultError) {
        switch probe(timeout: timeout, library: library) {
        case .usable: return
        case .absent(let error), .unusable(let error): throw error
        }
    }

    /// Looks at the Secret Service once: usable, absent (nothing to talk to), or present but
    /// unusable now (locked, too slow, no default keyring).
    static func probe(timeout: Double, library: String = defaultLibrary) -> SecretServiceProbe {
        let store: SecretServiceStore
        do throws(VaultError) {
            store = try SecretServiceStore(timeout: timeout, library: library)
        } catch {
            return error.code == .usage ? .unusable(error) : .absent(error)
        }
        let findings = Findings()
        do throws(VaultError) {
            try store.performUnlocking("checking the Secret Service", findings: findings) { call throws(VaultError) in
                let service = try call.service()
                guard let collection = try call.defaultCollection(service) else {
                    throw VaultError(
                        .unavailable,
                        "the Secret Service has no default keyring (collection); create one in the provider",
                        remedy: .useFileBackend)
                }
                if collection.isLocked {
                    call.findings.lockedKeyring = true
                    throw VaultError(
                        .cannotUnlock, "the default keyring is locked; unlock it (e.g. log in to the desktop)")
                }
            }
            return .usable
        } catch {
            return findings.absent ? .absent(error) : .unusable(error)
        }
    }

    /// The program that owns the Secret Service's name on the bus, or nil if none can be named.
    static func provider(timeout: Double, library: String = defaultLibrary) -> SecretServiceProvider? {
        guard let store = try? SecretServiceStore(timeout: timeout, library: library) else { return nil }
        let pid = try? store.perform("naming the Secret Service provider") { call throws(VaultError) -> UInt32 in
            try call.connect()
            var pid: UInt32 = 0
            guard try call.check({ CVaultSecret_ProviderProcessID(call.deadline, &pid, &$0) }) else { return 0 }
            return pid
        }
        guard let pid, pid > 0 else { return nil }
        return SecretServiceProvider(pid: pid)
    }

    public var label: String { "secret-service" }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        try performUnlocking("reading '\(name)'") { call throws(VaultError) in
            // The key agreement overlaps the connection and the search; it is waited for (and its
            // error kept) before the secret is asked for, and in any case before this operation ends.
            let session = SessionOpening(call)
            let items = try call.search(SecretServiceItems.query(name))
            // The preferred unlocked item, passing over any whose write never finished.
            var candidates = items
            while let index = SecretServiceItems.preferred(candidates.map(\.candidate)) {
                let item = candidates.remove(at: index)
                try session.finish()
                let value = try call.secret(of: item)
                if SecretServiceItems.isHalfWritten(item.attributes, valueIsEmpty: value.isEmpty) { continue }
                let metadata = SecretServiceItems.metadata(
                    attributes: item.attributes, created: item.created, modified: item.modified, now: .now())
                return SecretRecord(name: name, value: value, metadata: metadata)
            }
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
            let service = try call.service()
            guard let collection = try call.defaultCollection(service) else {
                throw VaultError(.unavailable, "the Secret Service has no default keyring to store '\(name)' in")
            }
            if collection.isLocked { throw call.lockedItems(name) }
            try session.finish()
            let record = SecretRecord(name: name, value: value, metadata: metadata(nil))
            let created = try call.createItem(
                in: collection, service, SecretServiceItems.attributes(for: record),
                label: SecretServiceItems.label(for: name), value: record.value)
            if let created { try call.requireStored(record.value, at: created, what: "the value of '\(name)'") }
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
            let items: [Item]
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

    /// Runs one operation, and again after each remedy its failure calls for, each remedy at most
    /// once: when the session's key exchange failed, a fresh session; when the keyring is locked,
    /// an unlock if that needs no one (or, with a prompt time-out, someone answers the provider's
    /// dialog); when the provider holds items back for the user's approval (KeePassXC), its
    /// approval dialog, only with a prompt time-out.
    func performUnlocking<T>(
        _ action: String, findings: Findings = Findings(), _ body: (Call) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        var remedied = Set<Remedy>()
        while true {
            do {
                return try perform(action, findings: findings, body)
            } catch {
                guard try remedy(findings, &remedied, action) else { throw error }
                findings.lockedKeyring = false
                findings.brokenSession = false
                findings.unapprovedItems = []
            }
        }
    }

    /// Applies the remedy that a failure's findings call for, unless it was applied already;
    /// whether the operation may work now.
    private func remedy(_ findings: Findings, _ remedied: inout Set<Remedy>, _ action: String) throws(VaultError)
        -> Bool
    {
        if findings.brokenSession, remedied.insert(.freshSession).inserted {
            CVaultSecret_SessionReset()
            return true
        }
        if findings.lockedKeyring, remedied.insert(.unlock).inserted {
            return unlockDefaultKeyring(action)
        }
        if !findings.unapprovedItems.isEmpty, let promptTimeout, remedied.insert(.approval).inserted {
            try askApproval(of: findings.unapprovedItems, action, promptTimeout: promptTimeout)
            return true
        }
        return false
    }

    /// What ``performUnlocking(_:findings:_:)`` may do once between two attempts.
    enum Remedy { case freshSession, unlock, approval }

    /// Unlocks the default keyring through the provider's prompt; whether it is unlocked now.
    /// With no one to answer, the prompt is run only where it completes without anyone (KWallet
    /// with its wallet open), so it gets the operation's whole time-out: a shorter wait ran out on
    /// a loaded machine, and libsecret, dismissing a prompt as it completed, printed a GLib critical.
    private func unlockDefaultKeyring(_ action: String) -> Bool {
        let wait = promptTimeout ?? timeout
        let unlocked = try? perform("unlocking the keyring while \(action)", timeout: wait) {
            call throws(VaultError) -> Bool in
            let service = try call.service()
            guard let collection = try call.defaultCollection(service) else { return false }
            guard collection.isLocked else { return true }
            // With no one to answer, ask only a provider that unlocks without a dialog: KWallet
            // with the wallet already open (at login, by kwallet-pam). Other providers would
            // show a dialog that no one answers.
            if promptTimeout == nil {
                var pid: UInt32 = 0
                _ = try? call.check { CVaultSecret_ProviderProcessID(call.deadline, &pid, &$0) }
                guard case .some(.kWallet(let daemon)) = SecretServiceProvider(pid: pid),
                    try call.check({ CVaultSecret_KWalletIsOpen(collection.pointer, daemon, call.deadline, &$0) })
                else { return false }
            }
            return try call.check {
                CVaultSecret_CollectionUnlock(service.pointer, collection.pointer, call.deadline, &$0)
            }
        }
        return unlocked == true
    }

    /// Runs one operation under one deadline of `timeout` seconds (or of `seconds`).
    func perform<T>(
        _ action: String, findings: Findings = Findings(), timeout seconds: Double? = nil,
        _ body: (Call) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        let timeout = seconds ?? self.timeout
        guard let deadline = CVaultSecret_DeadlineStart(timeout) else {
            throw VaultError(.other, "cannot start the Secret Service timer (errno \(errno)) while \(action)")
        }
        defer { CVaultSecret_DeadlineFinish(deadline) }
        return try body(Call(deadline: deadline, timeout: timeout, action: action, findings: findings))
    }
}

/// One operation's calls into the shim, all under the operation's deadline.
struct Call {
    let deadline: OpaquePointer
    let timeout: Double
    let action: String
    /// Set when a failure says there is no Secret Service at all.
    let findings: Findings

    /// Calls `body` with a GError slot; if it is filled, frees it and throws it as a VaultError.
    func check<T>(step: SecretServiceStep = .service, _ body: (inout OpaquePointer?) -> T) throws(VaultError) -> T {
        var error: OpaquePointer?
        let result = body(&error)
        guard let error else { return result }
        defer { CVaultSecret_ErrorFree(error) }
        let glib = Self.glibError(error)
        findings.absent = VaultError.isAbsence(glib, step: step)
        findings.vanished = VaultError.isVanished(glib)
        findings.brokenSession = VaultError.isBrokenSession(glib)
        throw VaultError.secretService(
            glib, step: step, action: action, timeout: timeout, timedOut: CVaultSecret_DeadlineExpired(deadline))
    }

    /// Blocks until this operation's deadline has fired (for tests).
    func waitForDeadline() {
        while !CVaultSecret_DeadlineExpired(deadline) { usleep(1_000) }
    }

    func failedSilently(_ what: String) -> VaultError {
        VaultError(.other, "the Secret Service failed without a reason while \(action) (\(what))")
    }

    func connect() throws(VaultError) {
        let connected = try check(step: .bus) { CVaultSecret_SessionBusConnect(deadline, &$0) }
        guard connected else { throw failedSilently("connecting to the session bus") }
    }

    func service() throws(VaultError) -> Owned {
        try connect()
        guard let service = try check({ CVaultSecret_ServiceGet(deadline, &$0) }) else {
            throw failedSilently("opening the service")
        }
        return Owned(service, release: CVaultSecret_ServiceUnref)
    }

    func defaultCollection(_ service: Owned) throws(VaultError) -> KeyringCollection? {
        try check { CVaultSecret_DefaultCollection(service.pointer, deadline, &$0) }.map(KeyringCollection.init)
    }

    /// Why items are locked: their keyring is locked, or (when the default keyring is unlocked)
    /// the provider wants the user to approve vault first, as KeePassXC does with its
    /// "confirm access" setting.
    func lockedItems(_ name: SecretName?, _ items: [Item] = []) -> VaultError {
        let what = name.map { "'\($0)'" } ?? "secrets"
        let collection = try? defaultCollection(service())
        findings.lockedKeyring = collection?.isLocked == true
        if let collection, !collection.isLocked {
            findings.unapprovedItems = items.filter(\.isLocked).map(\.path)
            return VaultError(
                .cannotUnlock,
                "the Secret Service holds \(what) but has not allowed vault to read them: approve vault in the "
                    + "provider (KeePassXC asks in a dialog, which vault lets it show when run at a terminal on the "
                    + "desktop; or turn off \"Confirm when passwords are retrieved by clients\" in its Secret Service "
                    + "settings) and retry")
        }
        return VaultError(
            .cannotUnlock,
            "the keyring holding \(what) is locked and the provider asks a person to unlock it: unlock it (log in "
                + "to the desktop, or unlock the database in KeePassXC), or run vault at a terminal on the desktop "
                + "to answer the provider's dialog")
    }

    /// An empty result means "absent" only if the default keyring is not locked: a locked
    /// keyring may hide the item.
    func requireDefaultUnlocked(_ name: SecretName?) throws(VaultError) {
        guard let collection = try defaultCollection(service()), collection.isLocked else { return }
        findings.lockedKeyring = true
        let what = name.map { "'\($0)'" } ?? "secrets"
        throw VaultError(.cannotUnlock, "the default keyring, which may hold \(what), is locked; unlock it and retry")
    }

    /// Searches by attributes, locked items included: one SearchItems, then each item's
    /// properties in one call (no libsecret proxies: the service's costs five calls before its
    /// first use, and an item's five).
    func search(_ attributes: [String: String]) throws(VaultError) -> [Item] {
        try connect()
        let table = Attributes(attributes)
        return try readItems(paths { CVaultSecret_SearchPaths(table.pointer, deadline, &$0) })
    }

    /// The items of every collection; a locked collection (whose items may be hidden) throws.
    /// Read afresh each time: KeePassXC answers a search without attributes with nothing.
    func allItems() throws(VaultError) -> [Item] {
        try connect()
        var items: [Item] = []
        for collection in try paths({ CVaultSecret_CollectionPaths(deadline, &$0) }) {
            var locked = false
            let itemPaths: [String]
            do throws(VaultError) {
                itemPaths = try paths { CVaultSecret_CollectionItemPaths(collection, deadline, &locked, &$0) }
            } catch {
                guard findings.vanished else { throw error }
                findings.vanished = false
                continue  // the collection was deleted since the list of collections
            }
            if locked {
                findings.lockedKeyring = true
                throw VaultError(.cannotUnlock, "a keyring holding secrets is locked; unlock it and retry")
            }
            items += try readItems(itemPaths)
        }
        return items
    }

    /// Each item's properties. An item deleted by another program since its path was found is
    /// left out: it did not exist at some moment during this look, so a result without it is
    /// true of that moment, while every item that existed throughout is read. Starting the whole
    /// look again instead never ends while another program keeps changing a large keyring.
    private func readItems(_ paths: [String]) throws(VaultError) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(paths.count)
        for path in paths {
            do throws(VaultError) {
                items.append(try readItem(path))
            } catch {
                guard findings.vanished else { throw error }
                findings.vanished = false
            }
        }
        return items
    }

    /// The object paths a shim call returns, copied; the array is freed.
    private func paths(
        _ body: (inout OpaquePointer?) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) throws(VaultError) -> [String] {
        guard let array = try check(body) else { throw failedSilently("reading object paths") }
        defer { CVaultSecret_PathsFree(array) }
        var paths: [String] = []
        var index = 0
        while let path = array[index] {
            paths.append(String(cString: path))
            index += 1
        }
        return paths
    }

    /// The item at `path`, with its properties read in one call.
    private func readItem(_ path: String) throws(VaultError) -> Item {
        var locked = false
        var created: UInt64 = 0
        var modified: UInt64 = 0
        let table = try check { CVaultSecret_ItemRead(path, deadline, &locked, &created, &modified, &$0) }
        guard let table else { throw failedSilently("reading an item's properties") }
        return Item(
            path: path, isLocked: locked, attributes: Attributes(adopting: table).dictionary, created: created,
            modified: modified)
    }

    /// A libsecret proxy for the item, to delete it.
    func proxy(_ service: Owned, for item: Item) throws(VaultError) -> Owned {
        guard let proxy = try check({ CVaultSecret_ItemForPath(service.pointer, item.path, deadline, &$0) }) else {
            throw failedSilently("opening an item")
        }
        return Owned(proxy, release: CVaultSecret_ItemUnref)
    }

    /// The GError's domain, code and message, copied.
    static func glibError(_ error: OpaquePointer) -> GLibError {
        GLibError(
            domain: String(cString: CVaultSecret_ErrorDomain(error)), code: CVaultSecret_ErrorCode(error),
            message: String(cString: CVaultSecret_ErrorMessage(error)))
    }

    /// The item's secret. The provider sends none, without an error, for an item it holds back,
    /// and vault reads none from a secret that does not decrypt (KWallet's failing key exchange):
    /// a fresh session may work.
    func secret(of item: Item) throws(VaultError) -> SecureBytes {
        try secret(at: item.path)
    }

    /// The secret of the item at `path`, copied from the shim's buffer, which the shim wipes as it
    /// frees it.
    func secret(at path: String) throws(VaultError) -> SecureBytes {
        var length = 0
        guard let bytes = try check({ CVaultSecret_SecretForPath(path, &length, deadline, &$0) }) else {
            findings.brokenSession = true
            throw failedSilently("the item has no secret")
        }
        defer { CVaultSecret_SecretFree(bytes, length) }
        return SecureBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Reads the secret of the item at `path` back and throws unless it is `value`. A provider can
    /// acknowledge a write it did not keep: KWallet stores a secret only through a wallet handle
    /// that its Secret Service side may hold for a wallet it no longer has open, and answers the
    /// write without an error either way. An acknowledged write must hold its value.
    func requireStored(_ value: SecureBytes, at path: String, what: String) throws(VaultError) {
        let stored = try secret(at: path)
        guard stored != value else { return }
        throw VaultError(
            .other,
            "the Secret Service provider accepted \(what) but did not store it (it reads back "
                + "\(stored.count == 0 ? "empty" : "different")); unlock the keyring in the provider (or restart "
                + "it) and retry")
    }

    /// Replaces the item's attributes with exactly `attributes` (one Properties.Set, no proxy).
    func setAttributes(of item: Item, _ attributes: [String: String]) throws(VaultError) {
        let table = Attributes(attributes)
        guard try check({ CVaultSecret_ItemSetAttributesAtPath(item.path, table.pointer, deadline, &$0) }) else {
            throw failedSilently("setting attributes")
        }
    }

    /// Replaces the item's secret (one SetSecret, no proxy), opening the session first if no
    /// one has.
    func setSecret(of item: Item, _ value: SecureBytes) throws(VaultError) {
        let set = try check { error in
            value.withUnsafeBytes {
                CVaultSecret_ItemSetSecretAtPath(
                    item.path, $0.baseAddress, $0.count,
                    SecretServiceItems.contentType(for: $0), deadline, &error)
            }
        }
        guard set else { throw failedSilently("setting the secret") }
    }

    /// Creates the item; the new item's path, if the provider names it.
    func createItem(
        in collection: KeyringCollection, _ service: Owned, _ attributes: [String: String], label: String,
        value: SecureBytes
    ) throws(VaultError) -> String? {
        let table = Attributes(attributes)
        var prompted = false
        var path: UnsafeMutablePointer<CChar>?
        defer { free(path) }
        let created = try check { error in
            value.withUnsafeBytes {
                CVaultSecret_ItemCreate(
                    service.pointer, collection.path, table.pointer, label, $0.baseAddress,
                    $0.count, SecretServiceItems.contentType(for: $0), &prompted, &path, deadline, &error)
            }
        }
        if prompted {
            findings.lockedKeyring = true
            throw VaultError(
                .cannotUnlock,
                "the provider's prompt to create the item was dismissed while \(action) (the keyring "
                    + "may have been locked meanwhile): unlock the keyring and retry")
        }
        guard created else { throw failedSilently("creating the item") }
        return path.map { String(cString: $0) }
    }

    func delete(_ item: Owned) throws(VaultError) {
        guard try check({ CVaultSecret_ItemDelete(item.pointer, deadline, &$0) }) else {
            throw failedSilently("deleting the item")
        }
    }
}

/// What ``SecretServiceStore/probe(timeout:library:)`` found.
enum SecretServiceProbe: Sendable {
    /// A provider answers and its default keyring is unlocked.
    case usable
    /// Nothing to talk to: libsecret does not load, no session bus, or nothing owns (or can
    /// start) the Secret Service on it.
    case absent(VaultError)
    /// A provider is there but cannot be used now: locked, too slow, no default keyring.
    case unusable(VaultError)
}

/// What an operation's failures said, for the caller to act on: the Secret Service is absent
/// (`VaultError.isAbsence`), an object vanished under it (`VaultError.isVanished`), the keyring
/// is locked (so unlocking may help), or the session's key exchange failed (a fresh one may work).
final class Findings {
    var absent = false
    var vanished = false
    var lockedKeyring = false
    var brokenSession = false
    /// The paths of items that the provider holds back until the user approves vault, in an
    /// unlocked keyring (KeePassXC's "confirm access").
    var unapprovedItems: [String] = []
}

/// The service's session being opened on a thread of its own, joined by ``finish()`` or, at
/// the latest, on deinit (where its error is dropped: the operation already failed or ended).
final class SessionOpening {
    private var opening: OpaquePointer?
    private let call: Call

    init(_ call: Call) {
        self.call = call
        opening = CVaultSecret_SessionOpenStart(call.deadline)
    }

    /// Waits for the session; throws the key exchange's failure.
    func finish() throws(VaultError) {
        guard let pending = opening else { return }
        opening = nil
        guard try call.check({ CVaultSecret_SessionOpenFinish(pending, &$0) }) else {
            throw call.failedSilently("opening a session")
        }
    }

    deinit {
        guard let pending = opening else { return }
        var error: OpaquePointer?
        _ = CVaultSecret_SessionOpenFinish(pending, &error)
        CVaultSecret_ErrorFree(error)
    }
}

/// Owns one reference to a GObject (or other shim object) and drops it on deinit.
final class Owned {
    let pointer: OpaquePointer
    private let release: (OpaquePointer?) -> Void

    init(_ pointer: OpaquePointer, release: @escaping (OpaquePointer?) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit { release(pointer) }
}

/// A SecretCollection.
final class KeyringCollection {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { CVaultSecret_CollectionUnref(pointer) }
    var isLocked: Bool { CVaultSecret_CollectionIsLocked(pointer) }
    /// Its D-Bus object path.
    var path: String { String(cString: CVaultSecret_CollectionPath(pointer)) }
}

/// An item found by a search: its object path and the properties read with it.
struct Item {
    let path: String
    let isLocked: Bool
    let attributes: [String: String]
    let created: UInt64
    let modified: UInt64

    var candidate: SecretServiceItems.Candidate {
        SecretServiceItems.Candidate(locked: isLocked, created: created, modified: modified)
    }
}

/// A GHashTable of attributes.
final class Attributes {
    let pointer: OpaquePointer

    init(_ dictionary: [String: String]) {
        pointer = CVaultSecret_AttributesNew()
        for (name, value) in dictionary { CVaultSecret_AttributesSet(pointer, name, value) }
    }

    init(adopting pointer: OpaquePointer) { self.pointer = pointer }
    deinit { CVaultSecret_AttributesUnref(pointer) }

    var dictionary: [String: String] {
        var count = 0
        let names = CVaultSecret_AttributeNames(pointer, &count)
        defer { CVaultSecret_AttributeNamesFree(names) }
        var result: [String: String] = [:]
        for index in 0..<count {
            let name = names[index]
            if let value = CVaultSecret_AttributesGet(pointer, name) {
                result[String(cString: name)] = String(cString: value)
            }
        }
        return result
    }
}
