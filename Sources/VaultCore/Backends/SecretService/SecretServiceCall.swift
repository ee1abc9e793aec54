import CVaultSecret
import VaultAge

#if canImport(Glibc)
    import Glibc
#endif

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

    func service() throws(VaultError) -> Owned {
        try connect()
        guard let service = try check({ CVaultSecret_ServiceGet(deadline, &$0) }) else {
            throw failedSilently("opening the service")
        }
        return Owned(service, release: CVaultSecret_ServiceUnref)
    }

    /// libsecret's proxy for the default collection, for what needs one (its unlock prompt).
    func defaultCollection(_ service: Owned) throws(VaultError) -> KeyringCollection? {
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
    func lockedItems(_ name: SecretName?, _ items: [Item] = []) -> VaultError {
        let what = name.map { "'\($0)'" } ?? "secrets"
        let collection = try? defaultCollection()
        findings.record(nil)
        if collection?.isLocked == true { findings.record(.lockedKeyring) }
        if let collection, !collection.isLocked {
            findings.record(.unapprovedItems(items.filter(\.isLocked).map(\.path)))
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
        guard let collection = try defaultCollection(), collection.isLocked else { return }
        findings.record(.lockedKeyring)
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
                guard findings.take(.vanished) else { throw error }
                continue  // the collection was deleted since the list of collections
            }
            if locked {
                findings.record(.lockedKeyring)
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
            findings.record(.brokenSession)
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
        in collection: DefaultCollection, _ service: Owned, _ attributes: [String: String], label: String,
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
            findings.record(.lockedKeyring)
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
