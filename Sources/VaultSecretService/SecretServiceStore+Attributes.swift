package import VaultSecureBytes
package import VaultStorage

/// Items addressed by arbitrary attributes rather than vault's `service` and `username`, for
/// programs that store their own way (git-credential-libsecret). The GLib side stays in the
/// store: callers see attributes, values and times only.
package struct AttributeItem {
    package var attributes: [String: String]
    package var value: [UInt8]
    var created: UInt64
    var modified: UInt64
}

extension SecretServiceStore {
    /// The unlocked items whose attributes include all of `query`, with their secrets, most
    /// recently modified first. A matching item in a locked keyring is `.cannotUnlock`, never
    /// silently left out.
    package func items(matching query: [String: String], what: String) throws(VaultError) -> [AttributeItem] {
        try perform("reading \(what)") { call throws(VaultError) in
            let items = try call.search(query)
            if items.contains(where: \.isLocked) {
                throw VaultError(.cannotUnlock, "the keyring holding \(what) is locked", remedy: .unlockKeyring)
            }
            if items.isEmpty { try call.requireDefaultUnlocked(nil) }
            var found: [AttributeItem] = []
            for item in items {
                found.append(
                    AttributeItem(
                        attributes: item.attributes, value: try call.secret(of: item).unprotectedArray,
                        created: item.created, modified: item.modified))
            }
            return found.sorted { ($0.modified, $0.created) > ($1.modified, $1.created) }
        }
    }

    /// Replaces, in place, the attributes and secret of the most recent unlocked item matching
    /// `query` for which `isSame` holds; creates the item in the default keyring if there is none.
    package func put(
        matching query: [String: String], isSame: ([String: String]) -> Bool, attributes: [String: String],
        label: String, value: SecureBytes, what: String
    ) throws(VaultError) {
        try perform("writing \(what)") { call throws(VaultError) in
            let items = try call.search(query).filter { !$0.isLocked && isSame($0.attributes) }
            if let found = items.max(by: { ($0.modified, $0.created) < ($1.modified, $1.created) }) {
                try call.setAttributes(of: found, attributes)
                try call.setSecret(of: found, value)
                try call.requireStored(value, at: found.path, what: what)
                return
            }
            guard let collection = try call.defaultCollection() else {
                throw VaultError(.unavailable, "the Secret Service has no default keyring to store \(what) in")
            }
            if collection.isLocked {
                throw VaultError(
                    .cannotUnlock, "the default keyring, where \(what) would be stored, is locked",
                    remedy: .unlockKeyring)
            }
            let service = try call.service()
            let created = try call.createItem(in: collection, service, attributes, label: label, value: value)
            if let created { try call.requireStored(value, at: created, what: what) }
        }
    }

    /// Deletes the items matching `query` for which `shouldDelete` holds (given each item's
    /// attributes and secret).
    package func delete(
        matching query: [String: String], what: String, where shouldDelete: (AttributeItem) -> Bool
    ) throws(VaultError) {
        try perform("deleting \(what)") { call throws(VaultError) in
            let items = try call.search(query)
            if items.contains(where: \.isLocked) {
                throw VaultError(.cannotUnlock, "the keyring holding \(what) is locked", remedy: .unlockKeyring)
            }
            let service = items.isEmpty ? nil : try call.service()
            for item in items {
                let found = AttributeItem(
                    attributes: item.attributes, value: try call.secret(of: item).unprotectedArray,
                    created: item.created,
                    modified: item.modified)
                if shouldDelete(found), let service { try call.delete(call.proxy(service, for: item)) }
            }
        }
    }
}
