import VaultSecretService
import VaultSecureBytes
import VaultStorage

// The Secret Service's collections, items and secrets (``SecretServiceServer``'s calls on them).
extension SecretServiceServer {
    // MARK: - Collections

    func collectionCall(_ call: BusCall, id: String) throws(BusFailure) -> BusAnswer {
        try requireUnlocked()
        let snapshot = try snapshot()
        guard snapshot.hasCollection(id) else { throw noSuchObject(call.path) }
        let members = snapshot.items[id] ?? [:]
        switch call.method {
        case "Delete":
            try storing { () throws(VaultError) in try items.deleteCollection(id, items: Array(members.keys)) }
            return BusAnswer(reply: .success([.objectPath("/")]), signals: [serviceSignal("CollectionDeleted", id)])
        case "SearchItems":
            let wanted = try attributes(call.arguments[0])
            let found = members.filter { $0.value.matches(wanted) }.map { ProviderPath.item(id, $0.key) }
            return BusAnswer(reply: .success([.paths(found.sorted())]))
        case "CreateItem":
            return try createItem(call, collection: id, members: members, snapshot: snapshot)
        default:
            throw BusFailure(name: ProviderError.notSupported, message: "\(call.method) is not supported")
        }
    }

    func createItem(
        _ call: BusCall, collection: String, members: [String: ProviderRecord], snapshot: ProviderStore.Snapshot
    ) throws(BusFailure) -> BusAnswer {
        guard let properties = call.arguments[0].entries, case .boolean(let replace) = call.arguments[2] else {
            throw invalid("CreateItem takes (a{sv}(oayays)b)")
        }
        var label = ""
        var attributes: [String: String] = [:]
        for (key, value) in properties {
            guard case .variant(let inner) = value else { continue }
            switch key {
            case "org.freedesktop.Secret.Item.Label":
                guard case .string(let text) = inner else { throw invalid("the label is not a string") }
                label = try checkedText(text, what: "label")
            case "org.freedesktop.Secret.Item.Attributes": attributes = try self.attributes(inner)
            default: continue
            }
        }
        let (secret, contentType) = try secretValue(call.arguments[1], sender: call.sender)
        let now = Timestamp.now()
        let existing = replace ? members.first { $0.value.attributes == attributes }?.key : nil
        let id = existing ?? randomID()
        var record = ProviderRecord(
            kind: .item, label: label, contentType: contentType, attributes: attributes, created: now, modified: now,
            secret: secret)
        if let existing, let old = members[existing] { record.created = old.created }
        try storing { () throws(VaultError) in
            if snapshot.collections[collection] == nil {
                try items.writeCollection(
                    ProviderRecord(kind: .collection, label: "Login", created: now, modified: now), id: collection)
            }
            try items.writeItem(record, collection: collection, id: id)
        }
        return BusAnswer(
            reply: .success([.objectPath(ProviderPath.item(collection, id)), .objectPath("/")]),
            signals: [itemSignal(existing == nil ? "ItemCreated" : "ItemChanged", collection, id)])
    }

    func collectionProperty(_ name: String, id: String) throws(BusFailure) -> BusValue {
        let locked = isLocked
        switch (name, locked) {
        case ("Locked", _): return .boolean(locked)
        // What a locked store's encryption hides: the label by the collection's name, no times.
        // Clients read these to check that a collection exists before they unlock it.
        case ("Label", true): return .string(id == ProviderStore.loginCollection ? "Login" : id)
        case ("Created", true), ("Modified", true): return .uint64(0)
        default: break
        }
        let snapshot = try snapshot()
        let record = try collectionRecord(id, in: snapshot)
        switch name {
        case "Items": return .paths((snapshot.items[id] ?? [:]).keys.sorted().map { ProviderPath.item(id, $0) })
        case "Label": return .string(record.label)
        case "Created": return .uint64(UInt64(max(0, record.created.secondsSince1970)))
        case "Modified": return .uint64(UInt64(max(0, record.modified.secondsSince1970)))
        default: throw unknownProperty(name)
        }
    }

    /// The collection at `/aliases/ALIAS`. While the store is locked its aliases cannot be read:
    /// then `default` is `login`, as it is until SetAlias says otherwise.
    func collection(forAlias alias: String) throws(BusFailure) -> String {
        let snapshot: ProviderStore.Snapshot
        do {
            snapshot = try self.snapshot()
        } catch {
            if error.name == ProviderError.isLocked, alias == "default" { return ProviderStore.loginCollection }
            throw error
        }
        guard let id = snapshot.collection(forAlias: alias) else {
            throw noSuchObject(ProviderPath.aliasPrefix + alias)
        }
        return id
    }

    /// A collection's record; `login`'s default until it is first written.
    func collectionRecord(_ id: String, in snapshot: ProviderStore.Snapshot) throws(BusFailure)
        -> ProviderRecord
    {
        if let record = snapshot.collections[id] { return record }
        guard id == ProviderStore.loginCollection else { throw noSuchObject(ProviderPath.collection(id)) }
        return ProviderRecord(kind: .collection, label: "Login", created: .now(), modified: .now())
    }

    // MARK: - Items

    func itemCall(_ call: BusCall, collection: String, id: String) throws(BusFailure) -> BusAnswer {
        var record = try item(collection, id, path: call.path)
        switch call.method {
        case "Delete":
            try storing { () throws(VaultError) in _ = try items.deleteItem(collection: collection, id: id) }
            return BusAnswer(reply: .success([.objectPath("/")]), signals: [itemSignal("ItemDeleted", collection, id)])
        case "GetSecret":
            guard let session = call.arguments[0].text else { throw invalid("GetSecret takes (o)") }
            let cipher = try sessionCipher(session, sender: call.sender)
            return BusAnswer(reply: .success([try secretStruct(record, session: session, cipher: cipher)]))
        case "SetSecret":
            (record.secret, record.contentType) = try secretValue(call.arguments[0], sender: call.sender)
            record.modified = .now()
            try storing { () throws(VaultError) in try items.writeItem(record, collection: collection, id: id) }
            return BusAnswer(reply: .success([]), signals: [itemSignal("ItemChanged", collection, id)])
        default:
            throw BusFailure(name: ProviderError.notSupported, message: "\(call.method) is not supported")
        }
    }

    func item(_ collection: String, _ id: String, path: String) throws(BusFailure) -> ProviderRecord {
        try requireUnlocked()
        guard let record = try snapshot().items[collection]?[id] else { throw noSuchObject(path) }
        return record
    }

    // MARK: - Secrets and sessions

    func sessionCipher(_ path: String, sender: String) throws(BusFailure) -> SessionCipher {
        guard case .session(let id) = ProviderPath.parse(path), let session = sessions[id], session.owner == sender
        else {
            throw BusFailure(name: ProviderError.noSession, message: "no session \(path)")
        }
        return session.cipher
    }

    /// A Secret struct `(oayays)` for `record`, encrypted for the session.
    func secretStruct(_ record: ProviderRecord, session: String, cipher: SessionCipher) throws(BusFailure)
        -> BusValue
    {
        let encoded: (parameters: [UInt8], value: SecureBytes)
        do {
            encoded = try cipher.encode(record.secret)
        } catch {
            throw BusFailure(name: ProviderError.failed, message: error.message)
        }
        let contentType = record.contentType.isEmpty ? "text/plain" : record.contentType
        return .tuple([
            .objectPath(session), .bytes(SecureBytes(encoded.parameters)), .bytes(encoded.value), .string(contentType),
        ])
    }

    /// The secret and content type of a Secret struct `(oayays)` sent through one of the caller's
    /// sessions.
    func secretValue(_ value: BusValue, sender: String) throws(BusFailure) -> (SecureBytes, String) {
        guard case .tuple(let fields) = value, fields.count == 4, let session = fields[0].text,
            case .bytes(let parameters) = fields[1], case .bytes(let sealed) = fields[2],
            case .string(let contentType) = fields[3]
        else { throw invalid("a secret is (oayays)") }
        let cipher = try sessionCipher(session, sender: sender)
        // Padding adds at most one block; anything longer is over the limit whatever it holds.
        guard sealed.count <= Self.maximumSecretBytes + SessionCipher.blockBytes else {
            throw invalid("the secret is larger than \(Self.maximumSecretBytes) bytes")
        }
        let secret = parameters.withUnsafeBytes { (parameters) in
            sealed.withUnsafeBytes { cipher.decode(parameters: parameters, value: $0) }
        }
        guard let secret else { throw invalid("the secret does not decrypt with this session's key") }
        guard secret.count <= Self.maximumSecretBytes else {
            throw invalid("the secret is larger than \(Self.maximumSecretBytes) bytes")
        }
        return (secret, try checkedText(contentType, what: "content type"))
    }
}
