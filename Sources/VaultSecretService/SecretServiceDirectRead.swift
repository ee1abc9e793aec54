import CVaultSecret
internal import Synchronization
import VaultSecureBytes
import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A read without libsecret: the same calls as libsecret's path makes for a read, over sd-bus
/// (libsystemd) on a connection of its own (CVaultSecret's "direct read").
///
/// Loading libsecret, GLib, GIO and GObject and starting GDBus's thread is most of what a read
/// costs vault; libsystemd loads in a third of that time (docs/design.md, "Speed"). This path only
/// reads what an unlocked item holds. Anything else (nothing found, a locked item, an error, a
/// reply of another shape, a provider without encryption) is ``Outcome/unusable``, and the store
/// reads through libsecret's path, which decides what that means and may unlock. A reply it
/// reads, it reads as that path does, and it chooses among the items with the same code
/// (``SecretServiceItems/record(_:in:secret:)``), so both paths return the same record.
enum SecretServiceDirectRead {
    /// sd-bus's library, loaded by the first read.
    static let defaultLibrary = "libsystemd.so.0"

    enum Outcome {
        case record(SecretRecord)
        /// Read through libsecret instead.
        case unusable
        /// The provider did not answer within the time-out.
        case timedOut
    }

    /// Why a call of this path ended it: a reply it does not read (or no connection), or the
    /// deadline. Either way its connection is dropped; the next read opens another.
    private enum Stop: Error {
        case unusable, timedOut

        init?(_ status: CVaultSecret_DirectStatus) {
            switch status {
            case CVAULTSECRET_DIRECT_DONE: return nil
            case CVAULTSECRET_DIRECT_TIMED_OUT: self = .timedOut
            default: self = .unusable
            }
        }
    }

    /// A connection of this path's own and, once agreed, its session: kept for the process, as
    /// libsecret's path keeps its own, so that a command that reads several secrets (`exec`)
    /// connects and agrees a key once.
    private final class Connection {
        let bus: OpaquePointer
        var session: (path: String, cipher: SessionCipher)?

        init(_ bus: OpaquePointer) { self.bus = bus }
        deinit { CVaultSecret_DirectClose(bus) }
    }

    /// The kept connection; reads take turns on it.
    private static let kept = Mutex<Connection?>(nil)

    /// Reads `name` within `timeout` seconds, loading `library` (sd-bus) and libgcrypt first.
    static func read(_ name: SecretName, timeout: Double, library: String) -> Outcome {
        readAgreeing(name, timeout: timeout, library: library).outcome
    }

    /// As ``read(_:timeout:library:)``, and whether this read agreed a new session (for tests).
    static func readAgreeing(_ name: SecretName, timeout: Double, library: String) -> (outcome: Outcome, agreed: Bool) {
        guard loads(library) else { return (.unusable, false) }
        return kept.withLock { (kept) -> (outcome: Outcome, agreed: Bool) in
            var agreed = false
            do throws(Stop) {
                let connection: Connection
                if let open = kept {
                    connection = open
                } else {
                    connection = try open(timeout)
                    kept = connection
                }
                CVaultSecret_DirectSetDeadline(connection.bus, timeout)
                let items = try search(connection.bus, SecretServiceItems.query(name))
                let record = try SecretServiceItems.record(name, in: items) { item throws(Stop) in
                    let session: (path: String, cipher: SessionCipher)
                    if let agreedBefore = connection.session {
                        session = agreedBefore
                    } else {
                        session = try Self.session(connection.bus)
                        connection.session = session
                        agreed = true
                    }
                    return try secret(connection.bus, item.path, session)
                }
                // Nothing to read is no failure of the connection: it is kept.
                return (record.map(Outcome.record) ?? .unusable, agreed)
            } catch {
                kept = nil
                return (error == .timedOut ? .timedOut : .unusable, agreed)
            }
        }
    }

    /// A new connection, with OpenSession on its way.
    private static func open(_ timeout: Double) throws(Stop) -> Connection {
        var bus: OpaquePointer?
        let status = CVaultSecret_DirectOpen(timeout, &bus)
        guard let bus else { throw .unusable }
        let connection = Connection(bus)  // closes it, whatever happens next
        try check(status)
        return connection
    }

    /// Whether sd-bus and libgcrypt (for the key agreement) are loaded, loading them if need be.
    private static func loads(_ library: String) -> Bool {
        for reason in [CVaultSecret_LoadSdBus(library), CVaultSecret_LoadGcrypt("libgcrypt.so.20")] {
            guard let reason else { continue }
            free(reason)
            return false
        }
        return true
    }

    private static func check(_ status: CVaultSecret_DirectStatus) throws(Stop) {
        if let stop = Stop(status) { throw stop }
    }

    /// The items found for `attributes`, each with its properties.
    private static func search(_ bus: OpaquePointer, _ attributes: [String: String]) throws(Stop)
        -> [SecretServiceFoundItem]
    {
        let strings = attributes.flatMap { [strdup($0.key), strdup($0.value)] } + [nil]
        defer { for string in strings { free(string) } }
        var found: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let status = strings.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            CVaultSecret_DirectSearch(bus, $0.baseAddress!, &found)
        }
        try check(status)
        defer { CVaultSecret_DirectStringsFree(found) }
        var items: [SecretServiceFoundItem] = []
        for path in found.map(copiedStrings) ?? [] { items.append(try item(bus, path)) }
        return items
    }

    private static func item(_ bus: OpaquePointer, _ path: String) throws(Stop) -> SecretServiceFoundItem {
        var locked = false
        var created: UInt64 = 0
        var modified: UInt64 = 0
        var pairs: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(CVaultSecret_DirectItemRead(bus, path, &locked, &created, &modified, &pairs))
        defer { CVaultSecret_DirectStringsFree(pairs) }
        let flat = pairs.map(copiedStrings) ?? []
        var attributes: [String: String] = [:]
        // A name sent twice keeps its last value, as libsecret's path's hash table does.
        for index in stride(from: 0, to: flat.count - 1, by: 2) { attributes[flat[index]] = flat[index + 1] }
        return SecretServiceFoundItem(
            path: path, isLocked: locked, attributes: attributes, created: created, modified: modified)
    }

    /// The session: its path and its cipher, from the shared secret of the key agreement.
    private static func session(_ bus: OpaquePointer) throws(Stop) -> (path: String, cipher: SessionCipher) {
        var shared = SecureBytes(zeros: Int(CVAULTSECRET_GROUP_BYTES))
        var path: UnsafeMutablePointer<CChar>?
        defer { free(path) }
        let status = shared.withUnsafeMutableBytes {
            CVaultSecret_DirectSession(bus, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &path)
        }
        try check(status)
        guard let path else { throw .unusable }
        return (String(cString: path), shared.withUnsafeBytes { SessionCipher(sharedSecret: $0) })
    }

    /// The item's secret, decrypted; a secret that does not decrypt ends this path.
    private static func secret(
        _ bus: OpaquePointer, _ path: String, _ session: (path: String, cipher: SessionCipher)
    ) throws(Stop) -> SecureBytes {
        var sent = CVaultSecret_SecretBytes()
        defer { CVaultSecret_SecretBytesFree(&sent) }
        try check(CVaultSecret_DirectSecret(bus, path, session.path, &sent))
        let secret = session.cipher.decode(
            parameters: UnsafeRawBufferPointer(start: sent.parameters, count: sent.parametersLength),
            value: UnsafeRawBufferPointer(start: sent.value, count: sent.valueLength))
        guard let secret else { throw .unusable }
        return secret
    }
}
