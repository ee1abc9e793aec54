import VaultSecretService
import VaultSecureBytes
public import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The Secret Service's objects (`vault secret-service serve`): the service, its collections,
/// items, sessions and prompts, kept in a vault store (``ProviderStore``).
///
/// Every call comes through ``ProviderBus`` on one thread; nothing here is shared with another.
/// Only a caller of the provider's own uid is answered. A collection is unlocked while the store
/// opens without a person (a key in the provider's environment, a key `vault unlock` cached where
/// the provider can see it, or one handed over on org.vault.Provider1) and no Lock asked
/// otherwise; a prompt can never ask anyone, so it completes as dismissed.
///
/// The private interface org.vault.Provider1 at /org/vault/Provider (for `vault unlock` and
/// `vault lock` in another session; only callers of the provider's own uid reach it):
///   - UnlockWithFileKey(ay key, t seconds): opens the store with the age file key `key` (16
///     bytes) for `seconds` (the unlock's own duration, at most UnlockPolicy.maximumSeconds), and
///     unlocks; the key is forgotten when they have passed, as the kernel forgets a cached one;
///     org.freedesktop.Secret.Error.IsLocked if it is not the file's key,
///     org.freedesktop.DBus.Error.NotSupported for a store without a file key (OpenBao).
///   - Lock(): forgets every key held in memory and locks until the next Unlock.
public final class SecretServiceServer: BusHandler {
    /// The largest secret accepted, in bytes.
    static let maximumSecretBytes = 1 << 20
    /// The most attributes an item may have, and the largest name, value or label, in bytes.
    static let maximumAttributes = 64
    static let maximumTextBytes = 4096
    /// The most sessions open at once, over all clients.
    static let maximumSessions = 1024

    let items: ProviderStore
    var bus: ProviderBus?
    var sessions: [String: (owner: String, cipher: SessionCipher)] = [:]
    /// Open prompts, by id, with the caller that may use them.
    var prompts: [String: String] = [:]
    /// Whether each caller seen is of this uid (a unique bus name is never reused).
    var callers: [String: Bool] = [:]
    var counter: UInt64 = 0
    /// Set by Lock, cleared by an Unlock that succeeds.
    var lockedByRequest = false
    /// When the key handed over on org.vault.Provider1 runs out, if one was.
    var handedKeyExpires: Timestamp?
    /// Whether libgcrypt is there for dh-ietf1024-sha256-aes128-cbc-pkcs7 sessions.
    var hasKeyAgreement = false

    public init(store: any SecretStore) {
        items = ProviderStore(store: store)
    }

    /// Owns org.freedesktop.secrets on the session bus and answers calls until the bus goes away.
    /// Throws `.unavailable` when libgio is missing or the bus cannot be reached, `.conflict` when
    /// another program owns the name.
    public func serve(ready: () -> Void = {}) throws(VaultError) {
        if let reason = ProviderBus.load() { throw VaultError(.unavailable, "cannot load GDBus: \(reason)") }
        // Without libgcrypt, sessions are plain only: clients fall back to them (the spec's
        // NotSupported for the algorithm), as they do with a libsecret built without it.
        hasKeyAgreement = SessionResponder.load() == nil
        let bus = try ProviderBus(handler: self)
        self.bus = bus
        defer { self.bus = nil }
        try bus.register(ProviderPath.collection(ProviderStore.loginCollection))
        _ = try? snapshot()  // registers the collections there are, if the store opens
        try bus.requestName(SecretServiceNames.bus)
        ready()
        bus.run()
    }

    // MARK: - Dispatch

    func interfaces(at path: String) -> [ProviderInterface] {
        switch ProviderPath.parse(path) {
        case .service: return [.service]
        case .collection, .alias: return [.collection]
        case .item: return [.item]
        case .session(let id): return sessions[id] == nil ? [] : [.session]
        case .prompt(let id): return prompts[id] == nil ? [] : [.prompt]
        case .provider: return [.vaultProvider]
        case nil: return []
        }
    }

    func call(_ call: BusCall) -> BusAnswer {
        forgetExpiredKey()
        guard isOwnUser(call.sender) else {
            return BusAnswer(reply: .failure(BusFailure(name: ProviderError.accessDenied, message: "not this user's")))
        }
        do throws(BusFailure) {
            switch (ProviderPath.parse(call.path), ProviderInterface(name: call.interface)) {
            case (.service, .service): return try serviceCall(call)
            case (.collection(let id), .collection): return try collectionCall(call, id: id)
            case (.alias(let alias), .collection): return try collectionCall(call, id: try collection(forAlias: alias))
            case (.item(let collection, let id), .item): return try itemCall(call, collection: collection, id: id)
            case (.session(let id), .session):
                guard sessions[id]?.owner == call.sender else { throw noSuchObject(call.path) }
                sessions[id] = nil
                return BusAnswer(reply: .success([]))
            case (.prompt(let id), .prompt):
                guard prompts[id] == call.sender else { throw noSuchObject(call.path) }
                prompts[id] = nil
                // No person can be asked: the prompt ends at once, dismissed (Prompt and Dismiss).
                // Every prompt is an Unlock's, whose result is the unlocked objects (`ao`, none):
                // clients check the result's type even when it is dismissed.
                return BusAnswer(
                    reply: .success([]),
                    signals: [
                        BusSignal(
                            path: call.path, interface: ProviderInterface.prompt.name, name: "Completed",
                            arguments: [.boolean(true), .variant(.paths([]))])
                    ])
            case (.provider, .vaultProvider): return try providerCall(call)
            default: throw noSuchObject(call.path)
            }
        } catch {
            return BusAnswer(reply: .failure(error))
        }
    }

    func property(_ name: String, of interface: String, at path: String, sender: String) -> Result<BusValue, BusFailure>
    {
        forgetExpiredKey()
        guard isOwnUser(sender) else {
            return .failure(BusFailure(name: ProviderError.accessDenied, message: "not this user's"))
        }
        do throws(BusFailure) {
            switch ProviderPath.parse(path) {
            case .service:
                guard name == "Collections" else { throw unknownProperty(name) }
                return .success(.paths(try snapshot().collectionIDs.map(ProviderPath.collection)))
            case .collection(let id): return .success(try collectionProperty(name, id: id))
            case .alias(let alias): return .success(try collectionProperty(name, id: try collection(forAlias: alias)))
            case .item(let collection, let id):
                if name == "Locked" { return .success(.boolean(isLocked)) }
                let record = try item(collection, id, path: path)
                switch name {
                case "Attributes": return .success(.dictionary(record.attributes))
                case "Label": return .success(.string(record.label))
                case "Type": return .success(.string(record.attributes[SecretServiceItems.schemaKey] ?? ""))
                case "Created": return .success(.uint64(UInt64(max(0, record.created.secondsSince1970))))
                case "Modified": return .success(.uint64(UInt64(max(0, record.modified.secondsSince1970))))
                default: throw unknownProperty(name)
                }
            default: throw noSuchObject(path)
            }
        } catch {
            return .failure(error)
        }
    }

    func setProperty(
        _ name: String, of interface: String, at path: String, to value: BusValue, sender: String
    ) -> Result<[BusSignal], BusFailure> {
        guard isOwnUser(sender) else {
            return .failure(BusFailure(name: ProviderError.accessDenied, message: "not this user's"))
        }
        do throws(BusFailure) {
            switch (ProviderPath.parse(path), name) {
            case (.collection(let id), "Label"):
                let label = try checkedText(value.text ?? "", what: "label")
                var record = try collectionRecord(id, in: try snapshot())
                record.label = label
                record.modified = .now()
                try storing { () throws(VaultError) in try items.writeCollection(record, id: id) }
                return .success([collectionSignal("CollectionChanged", id)])
            case (.item(let collection, let id), "Label"), (.item(let collection, let id), "Attributes"):
                var record = try item(collection, id, path: path)
                if name == "Label" { record.label = try checkedText(value.text ?? "", what: "label") }
                if name == "Attributes" { record.attributes = try attributes(value) }
                record.modified = .now()
                try storing { () throws(VaultError) in try items.writeItem(record, collection: collection, id: id) }
                return .success([itemSignal("ItemChanged", collection, id)])
            default: throw BusFailure(name: ProviderError.notSupported, message: "\(name) cannot be set here")
            }
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Service

    func serviceCall(_ call: BusCall) throws(BusFailure) -> BusAnswer {
        let arguments = call.arguments
        switch call.method {
        case "OpenSession":
            guard case .string(let algorithm) = arguments[0], case .variant(let input) = arguments[1] else {
                throw invalid("OpenSession takes (sv)")
            }
            if sessions.count >= Self.maximumSessions { forgetDisconnected() }
            guard sessions.count < Self.maximumSessions else {
                throw BusFailure(name: ProviderError.limitsExceeded, message: "too many open sessions")
            }
            let output: BusValue
            let cipher: SessionCipher
            switch algorithm {
            case "plain":
                output = .string("")
                cipher = SessionCipher(sharedSecret: nil)
            case "dh-ietf1024-sha256-aes128-cbc-pkcs7" where hasKeyAgreement:
                guard case .bytes(let peer) = input else { throw invalid("the session's input is not an ay") }
                let response: (publicValue: [UInt8], cipher: SessionCipher)?
                do {
                    response = try SessionResponder.respond(to: peer.withUnsafeBytes { Array($0) })
                } catch {
                    throw BusFailure(name: ProviderError.failed, message: error.message)
                }
                guard let response else { throw invalid("the client's public value is out of range") }
                output = .bytes(SecureBytes(response.publicValue))
                cipher = response.cipher
            default:
                throw BusFailure(name: ProviderError.notSupported, message: "algorithm \(algorithm) is not supported")
            }
            let id = nextID()
            sessions[id] = (call.sender, cipher)
            return BusAnswer(reply: .success([.variant(output), .objectPath(ProviderPath.sessionPrefix + id)]))
        case "CreateCollection":
            guard let properties = arguments[0].entries, case .string(let alias) = arguments[1] else {
                throw invalid("CreateCollection takes (a{sv}s)")
            }
            try requireUnlocked()
            let snapshot = try snapshot()
            if !alias.isEmpty, let existing = snapshot.collection(forAlias: alias), snapshot.hasCollection(existing) {
                return BusAnswer(reply: .success([.objectPath(ProviderPath.collection(existing)), .objectPath("/")]))
            }
            var label = ""
            for (key, value) in properties where key == "org.freedesktop.Secret.Collection.Label" {
                guard case .variant(.string(let text)) = value else { throw invalid("the label is not a string") }
                label = try checkedText(text, what: "label")
            }
            let id = newCollectionID(label: label.isEmpty ? alias : label, taken: snapshot)
            let now = Timestamp.now()
            try storing { () throws(VaultError) in
                try items.writeCollection(
                    ProviderRecord(kind: .collection, label: label, created: now, modified: now), id: id)
                if !alias.isEmpty { try items.writeAlias(alias, collection: id) }
            }
            try storing { () throws(VaultError) in try bus?.register(ProviderPath.collection(id)) }
            return BusAnswer(
                reply: .success([.objectPath(ProviderPath.collection(id)), .objectPath("/")]),
                signals: [serviceSignal("CollectionCreated", id)])
        case "SearchItems":
            let wanted = try attributes(arguments[0])
            try requireUnlocked()
            let found = try snapshot().items.flatMap { (collection, members) in
                members.filter { $0.value.matches(wanted) }.map { ProviderPath.item(collection, $0.key) }
            }
            return BusAnswer(reply: .success([.paths(found.sorted()), .paths([])]))
        case "Unlock":
            guard case .array(_, let objects) = arguments[0] else { throw invalid("Unlock takes (ao)") }
            if tryUnlock() {
                return BusAnswer(reply: .success([.array(element: "o", objects), .objectPath("/")]))
            }
            let id = nextID()
            prompts[id] = call.sender
            return BusAnswer(reply: .success([.paths([]), .objectPath(ProviderPath.promptPrefix + id)]))
        case "Lock":
            guard case .array(_, let objects) = arguments[0] else { throw invalid("Lock takes (ao)") }
            return BusAnswer(reply: .success([.array(element: "o", objects), .objectPath("/")]), signals: lock())
        case "GetSecrets":
            guard case .array(_, let paths) = arguments[0], let session = arguments[1].text else {
                throw invalid("GetSecrets takes (aoo)")
            }
            let cipher = try sessionCipher(session, sender: call.sender)
            try requireUnlocked()
            let snapshot = try snapshot()
            var secrets: [BusValue] = []
            for path in paths.compactMap(\.text) {
                guard case .item(let collection, let id) = ProviderPath.parse(path),
                    let record = snapshot.items[collection]?[id]
                else { continue }
                secrets.append(
                    .dictEntry(.objectPath(path), try secretStruct(record, session: session, cipher: cipher)))
            }
            return BusAnswer(reply: .success([.array(element: "{o(oayays)}", secrets)]))
        case "ReadAlias":
            guard case .string(let alias) = arguments[0] else { throw invalid("ReadAlias takes (s)") }
            try requireUnlocked()
            let id = try snapshot().collection(forAlias: alias)
            return BusAnswer(reply: .success([.objectPath(id.map(ProviderPath.collection) ?? "/")]))
        case "SetAlias":
            guard case .string(let alias) = arguments[0], let path = arguments[1].text else {
                throw invalid("SetAlias takes (so)")
            }
            guard ProviderPath.isElement(alias) else { throw invalid("the alias is not a valid name") }
            try requireUnlocked()
            var id = ""
            if path != "/" {
                guard case .collection(let target) = ProviderPath.parse(path), try snapshot().hasCollection(target)
                else {
                    throw noSuchObject(path)
                }
                id = target
            }
            try storing { () throws(VaultError) in try items.writeAlias(alias, collection: id) }
            return BusAnswer(reply: .success([]))
        default:
            throw BusFailure(name: ProviderError.notSupported, message: "\(call.method) is not supported")
        }
    }

    // MARK: - Helpers

    /// The store's contents now; every collection in it is then served (GDBus reaches an item
    /// only below a registered collection).
    func snapshot() throws(BusFailure) -> ProviderStore.Snapshot {
        let snapshot = try storing { () throws(VaultError) in try items.snapshot() }
        for id in snapshot.collectionIDs {
            try storing { () throws(VaultError) in try bus?.register(ProviderPath.collection(id)) }
        }
        return snapshot
    }

    /// Runs a store operation; a store that cannot be opened without a person is IsLocked, any
    /// other failure Failed with its message.
    func storing<T>(_ body: () throws(VaultError) -> T) throws(BusFailure) -> T {
        do {
            return try body()
        } catch {
            if error.code == .cannotUnlock {
                throw BusFailure(name: ProviderError.isLocked, message: "locked: \(error.message)")
            }
            throw BusFailure(name: ProviderError.failed, message: error.message)
        }
    }

    /// An `a{ss}` within the limits.
    func attributes(_ value: BusValue) throws(BusFailure) -> [String: String] {
        guard let entries = value.entries else { throw invalid("attributes are a{ss}") }
        guard entries.count <= Self.maximumAttributes else {
            throw invalid("more than \(Self.maximumAttributes) attributes")
        }
        var attributes: [String: String] = [:]
        for (key, value) in entries {
            guard case .string(let text) = value else { throw invalid("attributes are a{ss}") }
            attributes[try checkedText(key, what: "attribute name")] = try checkedText(text, what: "attribute value")
        }
        return attributes
    }

    func checkedText(_ text: String, what: String) throws(BusFailure) -> String {
        guard text.utf8.count <= Self.maximumTextBytes else {
            throw invalid("the \(what) is longer than \(Self.maximumTextBytes) bytes")
        }
        return text
    }

    /// Drops the sessions, prompts and callers of clients that have left the bus: most clients
    /// never close their session.
    func forgetDisconnected() {
        guard let bus else { return }
        var connected: [String: Bool] = [:]
        func isConnected(_ name: String) -> Bool {
            if let known = connected[name] { return known }
            let answer = bus.isConnected(name)
            connected[name] = answer
            return answer
        }
        sessions = sessions.filter { isConnected($0.value.owner) }
        prompts = prompts.filter { isConnected($0.value) }
        callers = callers.filter { isConnected($0.key) }
    }

    func isOwnUser(_ sender: String) -> Bool {
        if let known = callers[sender] { return known }
        let allowed = bus?.uid(of: sender) == getuid()
        if callers.count >= Self.maximumSessions { forgetDisconnected() }
        callers[sender] = allowed
        return allowed
    }

    func nextID() -> String {
        counter += 1
        return String(counter)
    }

    /// A new item id: 16 random hexadecimal digits, so that providers on one file never collide.
    func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16)
    }

    func newCollectionID(label: String, taken snapshot: ProviderStore.Snapshot) -> String {
        let base = String(
            label.lowercased().unicodeScalars.map { ProviderPath.isElement(String($0)) ? Character($0) : "_" })
        var id = base.isEmpty ? "collection" : String(base.prefix(64))
        while snapshot.hasCollection(id) || snapshot.aliases[id] != nil {
            id = (base.isEmpty ? "collection" : base) + "_" + randomID()
        }
        return id
    }

    func invalid(_ message: String) -> BusFailure {
        BusFailure(name: ProviderError.invalidArgs, message: message)
    }
    func noSuchObject(_ path: String) -> BusFailure {
        BusFailure(name: ProviderError.noSuchObject, message: "no such object \(path)")
    }
    func unknownProperty(_ name: String) -> BusFailure { invalid("no property \(name)") }

    func serviceSignal(_ name: String, _ collection: String) -> BusSignal {
        BusSignal(
            path: ProviderPath.root, interface: ProviderInterface.service.name, name: name,
            arguments: [.objectPath(ProviderPath.collection(collection))])
    }

    func collectionSignal(_ name: String, _ collection: String) -> BusSignal {
        serviceSignal(name, collection)
    }

    func itemSignal(_ name: String, _ collection: String, _ id: String) -> BusSignal {
        BusSignal(
            path: ProviderPath.collection(collection), interface: ProviderInterface.collection.name, name: name,
            arguments: [.objectPath(ProviderPath.item(collection, id))])
    }
}

extension ProviderRecord {
    /// Whether every wanted attribute has the wanted value (the spec's search).
    func matches(_ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { attributes[$0.key] == $0.value }
    }
}
