import CVaultSecret

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

/// The default collection as read by path.
struct DefaultCollection {
    let path: String
    let isLocked: Bool
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
