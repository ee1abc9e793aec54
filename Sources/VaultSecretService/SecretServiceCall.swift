import CVaultSecret
import VaultSecureBytes
import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// One operation's calls into the C shim, all under the operation's deadline: with
/// SecretServiceResources.swift, SecretServiceSession.swift and (for the read over sd-bus)
/// SecretServiceDirectRead.swift, the only code that sees the shim, so no GLib or sd-bus type or
/// pointer reaches the store.
struct SecretServiceCall {
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
        findings.record(Self.failure(of: glib, step: step))
        throw VaultError.secretService(
            glib, step: step, action: action, timeout: timeout, timedOut: CVaultSecret_DeadlineExpired(deadline))
    }

    /// What a GLib error says a remedy could act on, if anything.
    static func failure(of error: GLibError, step: SecretServiceStep) -> SecretServiceFailure? {
        if VaultError.isAbsence(error, step: step) { return .absent }
        if VaultError.isVanished(error) { return .vanished }
        if VaultError.isBrokenSession(error) { return .brokenSession }
        return nil
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

    func service() throws(VaultError) -> LibsecretProxy {
        try connect()
        guard let service = try check({ CVaultSecret_ServiceGet(deadline, &$0) }) else {
            throw failedSilently("opening the service")
        }
        return LibsecretProxy(service, release: CVaultSecret_ServiceUnref)
    }

    /// libsecret's proxy for the default collection, for what needs one (its unlock prompt).
    func defaultCollection(_ service: LibsecretProxy) throws(VaultError) -> KeyringCollection? {
        try check { CVaultSecret_DefaultCollection(service.pointer, deadline, &$0) }.map(KeyringCollection.init)
    }

    /// The default collection's path and whether it is locked, read now by path (a ReadAlias and
    /// a Properties.Get; libsecret's proxies cost a service proxy's five calls first), or nil if
    /// the provider has no default collection.
    func defaultCollection() throws(VaultError) -> DefaultCollection? {
        try connect()
        var locked = false
        let path = try check { CVaultSecret_DefaultCollectionAtPath(deadline, &locked, &$0) }
        guard let path else { return nil }
        defer { free(path) }
        return DefaultCollection(path: String(cString: path), isLocked: locked)
    }

    /// Why items are locked: their keyring is locked, or (when the default keyring is unlocked)
    /// the provider wants the user to approve vault first, as KeePassXC does with its
    /// "confirm access" setting.
    func lockedItems(_ name: SecretName?, _ items: [SecretServiceFoundItem] = []) -> VaultError {
        let what = name.map { "'\($0)'" } ?? "secrets"
        let collection = try? defaultCollection()
        findings.record(nil)
        if collection?.isLocked == true { findings.record(.lockedKeyring) }
        if let collection, !collection.isLocked {
            findings.record(.unapprovedItems(items.filter(\.isLocked).map(\.path)))
            return VaultError(
                .cannotUnlock, "the Secret Service holds \(what) but has not allowed vault to read them",
                remedy: .approveInProvider)
        }
        return VaultError(
            .cannotUnlock, "the keyring holding \(what) is locked and the provider asks a person to unlock it",
            remedy: .unlockKeyringOrAnswerDialog)
    }

    /// An empty result means "absent" only if the default keyring is not locked: a locked
    /// keyring may hide the item.
    func requireDefaultUnlocked(_ name: SecretName?) throws(VaultError) {
        guard let collection = try defaultCollection(), collection.isLocked else { return }
        findings.record(.lockedKeyring)
        let what = name.map { "'\($0)'" } ?? "secrets"
        throw VaultError(
            .cannotUnlock, "the default keyring, which may hold \(what), is locked", remedy: .unlockKeyring)
    }

    /// Searches by attributes, locked items included: one SearchItems, then each item's
    /// properties in one call (no libsecret proxies: the service's costs five calls before its
    /// first use, and an item's five).
    func search(_ attributes: [String: String]) throws(VaultError) -> [SecretServiceFoundItem] {
        try connect()
        let table = AttributeTable(attributes)
        return try readItems(paths { CVaultSecret_SearchPaths(table.pointer, deadline, &$0) })
    }

    /// The items of every collection; a locked collection (whose items may be hidden) throws.
    /// Read afresh each time: KeePassXC answers a search without attributes with nothing.
    func allItems() throws(VaultError) -> [SecretServiceFoundItem] {
        try connect()
        var items: [SecretServiceFoundItem] = []
        for collection in try paths({ CVaultSecret_CollectionPaths(deadline, &$0) }) {
            var locked = false
            let itemPaths: [String]
            do throws(VaultError) {
                itemPaths = try paths { CVaultSecret_CollectionItemPaths(collection, deadline, &locked, &$0) }
            } catch {
                guard findings.take(.vanished) else { throw error }
                continue  // the collection was deleted since the list of collections
            }
            if locked {
                findings.record(.lockedKeyring)
                throw VaultError(.cannotUnlock, "a keyring holding secrets is locked", remedy: .unlockKeyring)
            }
            items += try readItems(itemPaths)
        }
        return items
    }

    /// Each item's properties. An item deleted by another program since its path was found is
    /// left out: it did not exist at some moment during this look, so a result without it is
    /// true of that moment, while every item that existed throughout is read. Starting the whole
    /// look again instead never ends while another program keeps changing a large keyring.
    private func readItems(_ paths: [String]) throws(VaultError) -> [SecretServiceFoundItem] {
        var items: [SecretServiceFoundItem] = []
        items.reserveCapacity(paths.count)
        for path in paths {
            do throws(VaultError) {
                items.append(try readItem(path))
            } catch {
                guard findings.take(.vanished) else { throw error }
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
        return copiedStrings(array)
    }

    /// The item at `path`, with its properties read in one call.
    private func readItem(_ path: String) throws(VaultError) -> SecretServiceFoundItem {
        var locked = false
        var created: UInt64 = 0
        var modified: UInt64 = 0
        let table = try check { CVaultSecret_ItemRead(path, deadline, &locked, &created, &modified, &$0) }
        guard let table else { throw failedSilently("reading an item's properties") }
        return SecretServiceFoundItem(
            path: path, isLocked: locked, attributes: AttributeTable(adopting: table).dictionary, created: created,
            modified: modified)
    }

    /// A libsecret proxy for the item, to delete it.
    func proxy(_ service: LibsecretProxy, for item: SecretServiceFoundItem) throws(VaultError) -> LibsecretProxy {
        guard let proxy = try check({ CVaultSecret_ItemForPath(service.pointer, item.path, deadline, &$0) }) else {
            throw failedSilently("opening an item")
        }
        return LibsecretProxy(proxy, release: CVaultSecret_ItemUnref)
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
    func secret(of item: SecretServiceFoundItem) throws(VaultError) -> SecureBytes {
        try secret(at: item.path)
    }

    /// The secret of the item at `path`, decrypted from the shim's copy of what the provider sent,
    /// which the shim wipes as it frees it.
    func secret(at path: String) throws(VaultError) -> SecureBytes {
        let session = try SecretServiceSession(self)
        var sent = CVaultSecret_SecretBytes()
        defer { CVaultSecret_SecretBytesFree(&sent) }
        let found = try check { CVaultSecret_SecretForPath(path, session.pointer, &sent, deadline, &$0) }
        let secret =
            found
            ? session.decode(
                parameters: UnsafeRawBufferPointer(start: sent.parameters, count: sent.parametersLength),
                value: UnsafeRawBufferPointer(start: sent.value, count: sent.valueLength)) : nil
        guard let secret else {
            findings.record(.brokenSession)
            throw failedSilently("the item has no secret")
        }
        return secret
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
                + "\(stored.count == 0 ? "empty" : "different"))", remedy: .unlockKeyringOrRestartProvider)
    }

    /// Reads a new item's secret back as ``requireStored(_:at:what:)`` does. KWallet may publish a
    /// wallet's items anew, under new object paths, as an unlock made by another process completes:
    /// a created item whose path went away is looked for again by its attributes (`query`), and
    /// the one found is read back.
    func requireCreated(_ value: SecureBytes, at path: String, query: [String: String], what: String)
        throws(VaultError)
    {
        do {
            try requireStored(value, at: path, what: what)
        } catch {
            guard findings.take(.vanished) else { throw error }
            let items = try search(query)
            guard let index = SecretServiceItems.preferred(items.map(\.candidate)) else { throw error }
            try requireStored(value, at: items[index].path, what: what)
        }
    }

    /// Replaces the item's attributes with exactly `attributes` (one Properties.Set, no proxy).
    func setAttributes(of item: SecretServiceFoundItem, _ attributes: [String: String]) throws(VaultError) {
        let table = AttributeTable(attributes)
        guard try check({ CVaultSecret_ItemSetAttributesAtPath(item.path, table.pointer, deadline, &$0) }) else {
            throw failedSilently("setting attributes")
        }
    }

    /// Replaces the item's secret (one SetSecret, no proxy), opening the session first if no
    /// one has.
    func setSecret(of item: SecretServiceFoundItem, _ value: SecureBytes) throws(VaultError) {
        let session = try SecretServiceSession(self)
        let secret = try session.encode(value)
        let contentType = value.withUnsafeBytes { SecretServiceItems.contentType(for: $0) }
        let set = try check { error in
            secret.value.withUnsafeBytes { bytes in
                CVaultSecret_ItemSetSecretAtPath(
                    item.path, session.pointer, secret.parameters, secret.parameters.count,
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, contentType, deadline, &error)
            }
        }
        guard set else { throw failedSilently("setting the secret") }
    }

    /// Creates the item; the new item's path, if the provider names it.
    func createItem(
        in collection: DefaultCollection, _ service: LibsecretProxy, _ attributes: [String: String], label: String,
        value: SecureBytes
    ) throws(VaultError) -> String? {
        let table = AttributeTable(attributes)
        let session = try SecretServiceSession(self)
        let secret = try session.encode(value)
        let contentType = value.withUnsafeBytes { SecretServiceItems.contentType(for: $0) }
        var prompted = false
        var path: UnsafeMutablePointer<CChar>?
        defer { free(path) }
        let created = try check { error in
            secret.value.withUnsafeBytes { bytes in
                CVaultSecret_ItemCreate(
                    service.pointer, collection.path, table.pointer, label, session.pointer, secret.parameters,
                    secret.parameters.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                    contentType, &prompted, &path, deadline, &error)
            }
        }
        if prompted {
            findings.record(.lockedKeyring)
            throw VaultError(
                .cannotUnlock,
                "the provider's prompt to create the item was dismissed while \(action) (the keyring "
                    + "may have been locked meanwhile)", remedy: .unlockKeyring)
        }
        guard created else { throw failedSilently("creating the item") }
        return path.map { String(cString: $0) }
    }

    func delete(_ item: LibsecretProxy) throws(VaultError) {
        guard try check({ CVaultSecret_ItemDelete(item.pointer, deadline, &$0) }) else {
            throw failedSilently("deleting the item")
        }
    }

    /// Whether this operation's deadline has fired (calls made under it were cancelled by it).
    var deadlineExpired: Bool { CVaultSecret_DeadlineExpired(deadline) }

    /// Opens the process's session with the provider unless it is open (the key exchange).
    func openSession() throws(VaultError) {
        guard try check({ CVaultSecret_SessionOpen(deadline, &$0) }) else { throw failedSilently("opening a session") }
    }

    /// The process id of the program that owns the Secret Service's name on the bus (after
    /// ``connect()``), or 0 if the bus does not say.
    func providerProcessID() throws(VaultError) -> UInt32 {
        var pid: UInt32 = 0
        guard try check({ CVaultSecret_ProviderProcessID(deadline, &pid, &$0) }) else { return 0 }
        return pid
    }

    /// The connection that owns `name` now, by its unique name, with the uid and process id the
    /// bus knows for it (after ``connect()``); nil when nothing owns it. Never starts a service.
    func nameOwner(_ name: String) throws(VaultError) -> (unique: String, uid: UInt32, pid: UInt32)? {
        var uid: UInt32 = 0
        var pid: UInt32 = 0
        var error: OpaquePointer?
        let unique = CVaultSecret_NameOwner(name, &uid, &pid, deadline, &error)
        if let error {
            let glib = Self.glibError(error)
            if glib.domain == GLibErrorCode.dbusDomain, glib.code == GLibErrorCode.dbusNameHasNoOwner {
                CVaultSecret_ErrorFree(error)
                return nil
            }
        }
        guard let unique = try check({ _ in unique }) ?? nil else { throw failedSilently("asking who owns \(name)") }
        defer { free(unique) }
        return (String(cString: unique), uid, pid)
    }

    /// Calls `method` of `interface` at `path` on the connection `destination` (a unique name,
    /// after ``connect()``) with `bytes` as its first argument (ay), if any, and `number` (t) after
    /// it, if any; never starts a service.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, bytes: SecureBytes?,
        number: UInt64? = nil
    ) throws(VaultError) {
        let done = try check { error in
            withUnsafePointer(to: number ?? 0) { numberPointer in
                let number = number == nil ? nil : numberPointer
                guard let bytes else {
                    return CVaultSecret_CallWithBytes(
                        destination, path, interface, method, nil, 0, number, deadline, &error)
                }
                // A key has at least one byte, so the pointer is not NULL (which would mean no argument).
                return bytes.withUnsafeBytes { raw in
                    CVaultSecret_CallWithBytes(
                        destination, path, interface, method, raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        raw.count, number, deadline, &error)
                }
            }
        }
        guard done else { throw failedSilently("calling \(method)") }
    }

    /// Whether the KWallet daemon `kwalletd` has the wallet behind `collection` open, so that its
    /// unlock prompt completes without asking anyone.
    func kWalletIsOpen(_ collection: KeyringCollection, daemon kwalletd: String) throws(VaultError) -> Bool {
        try check { CVaultSecret_KWalletIsOpen(collection.pointer, kwalletd, deadline, &$0) }
    }

    /// Asks the provider to unlock `collection` and runs its prompt; whether it is unlocked now.
    func unlock(_ collection: KeyringCollection, _ service: LibsecretProxy) throws(VaultError) -> Bool {
        try check { CVaultSecret_CollectionUnlock(service.pointer, collection.pointer, deadline, &$0) }
    }

    /// Asks the provider to unlock the objects at `paths` and runs its prompt (KeePassXC's access
    /// request); how many are unlocked now.
    func unlock(paths: [String], _ service: LibsecretProxy) throws(VaultError) -> Int {
        let arguments: [UnsafeMutablePointer<CChar>?] = paths.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let unlocked = try check { CVaultSecret_PathsUnlock(service.pointer, arguments, deadline, &$0) }
        return Int(unlocked)
    }

    /// Whether libsecret is loaded already (by an earlier operation, or `auto`'s look at the
    /// Secret Service), with its connection to the bus.
    static var isLoaded: Bool { CVaultSecret_IsLoaded() }

    /// Loads `library` (libsecret) for the shim; throws `.unavailable` with the loader's reason.
    static func load(_ library: String) throws(VaultError) {
        guard let reason = CVaultSecret_Load(library) else { return }
        defer { free(reason) }
        throw VaultError(.unavailable, "cannot load libsecret for the Secret Service: \(String(cString: reason))")
    }

    /// Drops the process's session, so that the next transfer agrees a fresh key.
    static func resetSession() { CVaultSecret_SessionReset() }

    /// Runs `body` with a call under a new deadline of `timeout` seconds, stopped when it returns.
    static func withDeadline<T>(
        _ timeout: Double, action: String, findings: Findings, _ body: (SecretServiceCall) throws(VaultError) -> T
    ) throws(VaultError) -> T {
        guard let deadline = CVaultSecret_DeadlineStart(timeout) else {
            throw VaultError(.other, "cannot start the Secret Service timer (errno \(errno)) while \(action)")
        }
        defer { CVaultSecret_DeadlineFinish(deadline) }
        return try body(SecretServiceCall(deadline: deadline, timeout: timeout, action: action, findings: findings))
    }
}

/// A GHashTable of attributes, for the shim's calls.
private final class AttributeTable {
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
