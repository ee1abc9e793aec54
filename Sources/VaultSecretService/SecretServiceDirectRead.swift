import CVaultSecret
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

    /// Why a call of this path ended it.
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

    /// Reads `name` within `timeout` seconds, loading `library` (sd-bus) and libgcrypt first.
    static func read(_ name: SecretName, timeout: Double, library: String) -> Outcome {
        guard loads(library) else { return .unusable }
        var bus: OpaquePointer?
        defer { CVaultSecret_DirectClose(bus) }
        do throws(Stop) {
            try check(CVaultSecret_DirectOpen(timeout, &bus))
            guard let bus else { return .unusable }
            let items = try search(bus, SecretServiceItems.query(name))
            var session: (path: String, cipher: SessionCipher)?
            let record = try SecretServiceItems.record(name, in: items) { item throws(Stop) in
                if session == nil { session = try open(bus) }
                return try secret(bus, item.path, session!)
            }
            return record.map(Outcome.record) ?? .unusable
        } catch {
            return error == .timedOut ? .timedOut : .unusable
        }
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
        for path in Self.strings(found) { items.append(try item(bus, path)) }
        return items
    }

    private static func item(_ bus: OpaquePointer, _ path: String) throws(Stop) -> SecretServiceFoundItem {
        var locked = false
        var created: UInt64 = 0
        var modified: UInt64 = 0
        var pairs: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(CVaultSecret_DirectItemRead(bus, path, &locked, &created, &modified, &pairs))
        defer { CVaultSecret_DirectStringsFree(pairs) }
        let flat = strings(pairs)
        var attributes: [String: String] = [:]
        // A name sent twice keeps its last value, as libsecret's path's hash table does.
        for index in stride(from: 0, to: flat.count - 1, by: 2) { attributes[flat[index]] = flat[index + 1] }
        return SecretServiceFoundItem(
            path: path, isLocked: locked, attributes: attributes, created: created, modified: modified)
    }

    /// The session: its path and its cipher, from the shared secret of the key agreement.
    private static func open(_ bus: OpaquePointer) throws(Stop) -> (path: String, cipher: SessionCipher) {
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

    /// The strings of a NULL-terminated C array, copied.
    private static func strings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        guard let array else { return [] }
        var strings: [String] = []
        var index = 0
        while let string = array[index] {
            strings.append(String(cString: string))
            index += 1
        }
        return strings
    }
}
