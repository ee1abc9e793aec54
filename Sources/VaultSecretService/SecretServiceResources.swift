import CVaultSecret
import VaultStorage

/// The service's session being opened on a thread of its own, joined by ``finish()`` or, at
/// the latest, on deinit (where its error is dropped: the operation already failed or ended).
final class SessionOpening {
    private var opening: OpaquePointer?
    private let call: SecretServiceCall

    init(_ call: SecretServiceCall) {
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

/// Owns one reference to a libsecret proxy (the service, an item) and drops it on deinit.
final class LibsecretProxy {
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

/// An item as a search or a listing found it: its object path and the properties read with it.
struct SecretServiceFoundItem {
    let path: String
    let isLocked: Bool
    let attributes: [String: String]
    let created: UInt64
    let modified: UInt64

    var candidate: SecretServiceItems.Candidate {
        SecretServiceItems.Candidate(locked: isLocked, created: created, modified: modified)
    }
}

/// The strings of a NULL-terminated array of C strings (the shim's lists of paths and
/// attributes), copied.
func copiedStrings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String] {
    var strings: [String] = []
    var index = 0
    while let string = array[index] {
        strings.append(String(cString: string))
        index += 1
    }
    return strings
}
