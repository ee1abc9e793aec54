import CVaultSecret

#if canImport(Glibc)
    import Glibc
#endif

/// A store in the desktop keyring, through the freedesktop Secret Service (gnome-keyring,
/// KeePassXC, ...) on the D-Bus session bus.
///
/// libsecret is loaded when the store is created, not linked, so vault runs where it is not
/// installed; then this store reports `.unavailable`. Every operation is bounded by the
/// time-out given to ``init(timeout:)``. The store never unlocks a keyring and never shows a
/// prompt: a locked keyring is `.cannotUnlock`.
///
/// This is the only file that sees the C shim: no GLib type or pointer leaves it.
public final class SecretServiceStore: SecretStore {
    /// The library loaded unless a test names another.
    static let defaultLibrary = "libsecret-1.so.0"

    /// Seconds an operation may take, D-Bus calls included.
    let timeout: Double

    /// Loads libsecret. Talks to no one yet: a missing bus or service shows on first use.
    ///
    /// - Parameter timeout: seconds each operation may take before it fails as `.unavailable`.
    public convenience init(timeout: Double) throws(VaultError) {
        try self.init(timeout: timeout, library: Self.defaultLibrary)
    }

    /// As ``init(timeout:)``, loading `library` instead of libsecret (for tests).
    init(timeout: Double, library: String) throws(VaultError) {
        guard timeout.isFinite, timeout > 0 else {
            throw VaultError(.usage, "the Secret Service time-out must be a positive number of seconds, not \(timeout)")
        }
        if let reason = CVaultSecret_Load(library) {
            defer { free(reason) }
            throw VaultError(
                .unavailable, "cannot load libsecret for the Secret Service: \(String(cString: reason))")
        }
        self.timeout = timeout
    }

    /// Answers quickly whether the Secret Service can be used: throws `.unavailable` with the
    /// reason (library not loadable, no session bus, no provider, no answer in time, no default
    /// keyring) or `.cannotUnlock` if the default keyring is locked.
    public static func checkAvailable(timeout: Double) throws(VaultError) {
        try checkAvailable(timeout: timeout, library: defaultLibrary)
    }

    static func checkAvailable(timeout: Double, library: String) throws(VaultError) {
        let store = try SecretServiceStore(timeout: timeout, library: library)
        try store.perform("checking the Secret Service") { call throws(VaultError) in
            let service = try call.service()
            guard let collection = try call.defaultCollection(service) else {
                throw VaultError(.unavailable, "the Secret Service has no default keyring (collection)")
            }
            if collection.isLocked {
                throw VaultError(.cannotUnlock, "the default keyring is locked; unlock it (e.g. log in to the desktop)")
            }
        }
    }

    public var label: String { "secret-service" }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        try perform("reading '\(name)'") { call throws(VaultError) in
            let service = try call.service()
            let items = try call.search(service, SecretServiceItems.query(name))
            guard let index = SecretServiceItems.preferred(items.map(\.candidate)) else {
                if !items.isEmpty { throw Self.locked(name) }
                try call.requireDefaultUnlocked(service, name)
                return nil
            }
            let item = items[index]
            let value = try call.secret(of: item)
            let metadata = SecretServiceItems.metadata(
                attributes: item.attributes, created: item.created, modified: item.modified, now: .now())
            return SecretRecord(name: name, value: value, metadata: metadata)
        }
    }

    public func write(_ record: SecretRecord) throws(VaultError) {
        let name = record.name
        try perform("writing '\(name)'") { call throws(VaultError) in
            let service = try call.service()
            let items = try call.search(service, SecretServiceItems.query(name))
            if let index = SecretServiceItems.preferred(items.map(\.candidate)) {
                // Update in place: attributes first, so a failure leaves the old value.
                let item = items[index]
                let old = item.attributes
                try call.setAttributes(of: item, SecretServiceItems.merging(record, into: old))
                do throws(VaultError) {
                    try call.setSecret(of: item, record.value)
                } catch {
                    // Best effort to put the old metadata back; the caller needs the first error.
                    _ = try? call.setAttributes(of: item, old)
                    throw error
                }
                return
            }
            if !items.isEmpty { throw Self.locked(name) }
            guard let collection = try call.defaultCollection(service) else {
                throw VaultError(.unavailable, "the Secret Service has no default keyring to store '\(name)' in")
            }
            if collection.isLocked { throw Self.locked(name) }
            try call.createItem(
                in: collection, SecretServiceItems.attributes(for: record), label: SecretServiceItems.label(for: name),
                value: record.value)
        }
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        try perform("deleting '\(name)'") { call throws(VaultError) in
            let service = try call.service()
            let items = try call.search(service, SecretServiceItems.query(name))
            if items.isEmpty {
                try call.requireDefaultUnlocked(service, name)
                return false
            }
            // All or nothing: a locked duplicate would reappear after a partial delete.
            if items.contains(where: \.isLocked) { throw Self.locked(name) }
            for item in items { try call.delete(item) }
            return true
        }
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        let what = service.map { "listing service '\($0)'" } ?? "listing all services"
        return try perform(what) { call throws(VaultError) in
            let proxy = try call.service()
            let items = try call.search(proxy, SecretServiceItems.query(service: service))
            if items.contains(where: \.isLocked) {
                throw VaultError(.cannotUnlock, "a keyring holding secrets is locked; unlock it and retry")
            }
            if items.isEmpty { try call.requireDefaultUnlocked(proxy, nil) }
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

    private static func locked(_ name: SecretName) -> VaultError {
        VaultError(
            .cannotUnlock, "the keyring holding '\(name)' is locked; unlock it (e.g. log in to the desktop) and retry")
    }

    /// Runs one operation under one deadline of `timeout` seconds.
    func perform<T>(_ action: String, _ body: (Call) throws(VaultError) -> T) throws(VaultError) -> T {
        guard let deadline = CVaultSecret_DeadlineStart(timeout) else {
            throw VaultError(.other, "cannot start the Secret Service timer (errno \(errno)) while \(action)")
        }
        defer { CVaultSecret_DeadlineFinish(deadline) }
        return try body(Call(deadline: deadline, timeout: timeout, action: action))
    }
}

/// One operation's calls into the shim, all under the operation's deadline.
struct Call {
    let deadline: OpaquePointer
    let timeout: Double
    let action: String

    /// Calls `body` with a GError slot; if it is filled, frees it and throws it as a VaultError.
    func check<T>(step: SecretServiceStep = .service, _ body: (inout OpaquePointer?) -> T) throws(VaultError) -> T {
        var error: OpaquePointer?
        let result = body(&error)
        guard let error else { return result }
        defer { CVaultSecret_ErrorFree(error) }
        let glib = GLibError(
            domain: String(cString: CVaultSecret_ErrorDomain(error)), code: CVaultSecret_ErrorCode(error),
            message: String(cString: CVaultSecret_ErrorMessage(error)))
        throw VaultError.secretService(
            glib, step: step, action: action, timeout: timeout, timedOut: CVaultSecret_DeadlineExpired(deadline))
    }

    func failedSilently(_ what: String) -> VaultError {
        VaultError(.other, "the Secret Service failed without a reason while \(action) (\(what))")
    }

    func service() throws(VaultError) -> Owned {
        let connected = try check(step: .bus) { CVaultSecret_SessionBusConnect(deadline, &$0) }
        guard connected else { throw failedSilently("connecting to the session bus") }
        guard let service = try check({ CVaultSecret_ServiceGet(deadline, &$0) }) else {
            throw failedSilently("opening the service")
        }
        return Owned(service, release: CVaultSecret_ServiceUnref)
    }

    func defaultCollection(_ service: Owned) throws(VaultError) -> KeyringCollection? {
        try check { CVaultSecret_DefaultCollection(service.pointer, deadline, &$0) }.map(KeyringCollection.init)
    }

    /// An empty result means "absent" only if the default keyring is not locked: a locked
    /// keyring may hide the item.
    func requireDefaultUnlocked(_ service: Owned, _ name: SecretName?) throws(VaultError) {
        guard let collection = try defaultCollection(service), collection.isLocked else { return }
        let what = name.map { "'\($0)'" } ?? "secrets"
        throw VaultError(.cannotUnlock, "the default keyring, which may hold \(what), is locked; unlock it and retry")
    }

    /// Searches by attributes, locked items included.
    ///
    /// libsecret searches, then loads each item it found; an item another program deletes in
    /// between fails the whole search with "no such object" (gnome-keyring answers
    /// UnknownMethod for the vanished path). The set of items changed under us, so search again.
    func search(_ service: Owned, _ attributes: [String: String]) throws(VaultError) -> [Item] {
        let table = Attributes(attributes)
        var attempt = 0
        while true {
            attempt += 1
            var count = 0
            var error: OpaquePointer?
            let array = CVaultSecret_Search(service.pointer, table.pointer, deadline, &count, &error)
            if let error {
                let vanished = Self.isVanishedObject(error) && !CVaultSecret_DeadlineExpired(deadline)
                if vanished, attempt < Self.searchAttempts {
                    CVaultSecret_ErrorFree(error)
                    continue
                }
                try check { $0 = error }
            }
            guard let array else { return [] }
            defer { free(array) }
            return (0..<count).map { Item(array[$0]) }
        }
    }

    /// How often a search is repeated when its items vanish while it loads them.
    static let searchAttempts = 8

    /// Whether a D-Bus error says the object at a path no longer exists.
    static func isVanishedObject(_ error: OpaquePointer) -> Bool {
        guard String(cString: CVaultSecret_ErrorDomain(error)) == GLibErrorCode.dbusDomain else { return false }
        let code = CVaultSecret_ErrorCode(error)
        return code == GLibErrorCode.dbusUnknownMethod || code == GLibErrorCode.dbusUnknownObject
    }

    func secret(of item: Item) throws(VaultError) -> [UInt8] {
        guard let value = try check({ CVaultSecret_ItemCopySecret(item.pointer, deadline, &$0) }) else {
            throw failedSilently("the item has no secret")
        }
        defer { CVaultSecret_ValueWipeAndUnref(value) }
        var length = 0
        let bytes = CVaultSecret_ValueBytes(value, &length)
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    func setAttributes(of item: Item, _ attributes: [String: String]) throws(VaultError) {
        let table = Attributes(attributes)
        guard try check({ CVaultSecret_ItemSetAttributes(item.pointer, table.pointer, deadline, &$0) }) else {
            throw failedSilently("setting attributes")
        }
    }

    func setSecret(of item: Item, _ value: [UInt8]) throws(VaultError) {
        let secret = try Value(value)
        guard try check({ CVaultSecret_ItemSetSecret(item.pointer, secret.pointer, deadline, &$0) }) else {
            throw failedSilently("setting the secret")
        }
    }

    func createItem(
        in collection: KeyringCollection, _ attributes: [String: String], label: String, value: [UInt8]
    ) throws(VaultError) {
        let table = Attributes(attributes)
        let secret = try Value(value)
        let created = try check {
            CVaultSecret_ItemCreate(collection.pointer, table.pointer, label, secret.pointer, deadline, &$0)
        }
        guard let created else { throw failedSilently("creating the item") }
        CVaultSecret_ItemUnref(created)
    }

    func delete(_ item: Item) throws(VaultError) {
        guard try check({ CVaultSecret_ItemDelete(item.pointer, deadline, &$0) }) else {
            throw failedSilently("deleting the item")
        }
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
}

/// A SecretItem found by a search, with what its proxy already knows.
final class Item {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { CVaultSecret_ItemUnref(pointer) }

    var isLocked: Bool { CVaultSecret_ItemIsLocked(pointer) }
    var created: UInt64 { CVaultSecret_ItemCreated(pointer) }
    var modified: UInt64 { CVaultSecret_ItemModified(pointer) }
    var candidate: SecretServiceItems.Candidate {
        SecretServiceItems.Candidate(locked: isLocked, created: created, modified: modified)
    }

    var attributes: [String: String] {
        guard let table = CVaultSecret_ItemAttributes(pointer) else { return [:] }
        return Attributes(adopting: table).dictionary
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

/// A SecretValue holding a copy of the bytes, wiped when released.
final class Value {
    let pointer: OpaquePointer

    init(_ bytes: [UInt8]) throws(VaultError) {
        let contentType = SecretServiceItems.contentType(for: bytes)
        let created = bytes.withUnsafeBufferPointer { CVaultSecret_ValueNew($0.baseAddress, $0.count, contentType) }
        guard let created else { throw VaultError(.other, "out of memory for a \(bytes.count)-byte secret") }
        pointer = created
    }

    deinit { CVaultSecret_ValueWipeAndUnref(pointer) }
}
