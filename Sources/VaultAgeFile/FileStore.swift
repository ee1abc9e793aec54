public import VaultAge
public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// A vault kept in one age-encrypted file (see docs/file-format.md).
///
/// Reads take no lock: writers replace the file by rename, so a reader sees the old or the new
/// file, never a mix. A read (`get`, `ls`) decrypts the file one age chunk at a time as it reads
/// it and scans the plaintext as it comes, so it never holds the whole file or plaintext. Writes
/// lock the file's directory and `<path>.lock` (``FileLock``), read, modify, and replace the file
/// atomically (``FileSystem/writeAtomically(_:lock:)``). The age header is kept across writes,
/// and the file key is kept across the operations of one store, so a passphrase-protected vault
/// pays for scrypt once per command, not twice.
public final class FileStore: SecretStore {
    /// The vault file.
    public let path: String
    private let keys: FileKeys

    /// The largest vault file this store reads.
    package static let maximumFileSize = 1 << 30

    /// The headers this user wrote, checked before each write; nil checks nothing.
    public let trust: HeaderTrust?

    /// Unlocked file keys kept by the kernel, tried before ``keys``; nil caches nothing.
    public let cache: FileKeyCache?

    public init(path: String, keys: FileKeys, trust: HeaderTrust? = nil, cache: FileKeyCache? = nil) {
        self.path = path
        self.keys = keys
        self.trust = trust
        self.cache = cache
    }

    public var label: String { "file \(path)" }

    /// The file's absolute path with symbolic links resolved, looked up each time (the file may
    /// be created meanwhile).
    public var identity: StoreIdentity { Self.identity(path: path) }

    /// The identity of a vault file at `path`, whether or not it is open.
    package static func identity(path: String) -> StoreIdentity {
        StoreIdentity(recordKey: "file " + FileSystem.canonicalPath(path))
    }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        try withDocument { (document) throws(VaultError) in try VaultDocument.find(name, in: document) } ?? nil
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        let entries = try withDocument { (document) throws(VaultError) in try VaultDocument.entries(in: document) }
        guard let entries else { return [] }
        return entries.filter { service == nil || $0.name.service == service }.sorted { $0.name < $1.name }
    }

    public func write(_ record: SecretRecord) throws(VaultError) {
        try modify { records in
            if let index = records.firstIndex(where: { $0.name == record.name }) {
                records[index] = record
            } else {
                records.append(record)
            }
            return true
        }
    }

    @discardableResult
    public func delete(_ name: SecretName) throws(VaultError) -> Bool {
        var removed = false
        try modify { records in
            guard let index = records.firstIndex(where: { $0.name == name }) else { return false }
            records.remove(at: index)
            removed = true
            return true
        }
        return removed
    }

    /// Whether the vault file exists.
    public var exists: Bool { FileSystem.exists(path) }

    /// Creates an empty vault encrypted to `recipients`; fails with `.conflict` if one exists.
    public func create(recipients: [any AgeRecipient]) throws(VaultError) {
        let lock = try lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        guard !FileSystem.exists(lock.path) else {
            throw VaultError(.conflict, "a vault already exists at \(path)", remedy: .rekey)
        }
        let (file, envelope) = try ageCall { () throws(AgeError) in
            try Age.encryptReturningEnvelope(VaultDocument.encode([]), to: recipients)
        }
        try HeaderRecord.record(header: envelope.headerBytes, previousFile: nil, lock: lock)
        try trust?.remember(
            header: envelope.headerBytes, types: envelope.stanzaTypes, path: lock.path, recipients: recipients)
        try FileSystem.writeAtomically(file, lock: lock)
    }

    /// Rewrites every record under new recipients with a fresh file key, atomically.
    public func rekey(to recipients: [any AgeRecipient]) throws(VaultError) {
        let lock = try FileLock(file: FileSystem.resolvingLink(path))
        defer { withExtendedLifetime(lock) {} }
        guard let opened = try load(lock.path), let previous = lastOpened?.file else {
            throw VaultError(.notFound, "no vault file at \(path)")
        }
        _ = try VaultDocument.decode(opened.plaintext)  // never rewrite a document we cannot read
        let (file, envelope) = try ageCall { () throws(AgeError) in
            try Age.encryptReturningEnvelope(opened.plaintext, to: recipients)
        }
        try HeaderRecord.record(header: envelope.headerBytes, previousFile: previous, lock: lock)
        try trust?.remember(
            header: envelope.headerBytes, types: envelope.stanzaTypes, previous: opened.envelope.headerBytes,
            path: lock.path, recipients: recipients)
        try FileSystem.writeAtomically(file, lock: lock)
        // The old header is no longer on disk: stop trusting it. Should this fail, the old
        // header stays trusted as well, as it was until now; the rekey itself has happened.
        try? trust?.remember(header: envelope.headerBytes, types: envelope.stanzaTypes, path: lock.path)
        // The old file key opens no file any more; nobody should hold it.
        cache?.forget(header: opened.envelope.headerBytes)
        lastOpened = nil
        lastEnvelope = nil
    }

    /// Opens the vault file with its usual keys (or a key cached already) and caches its file
    /// key in the kernel keyring for `seconds` (`vault unlock`): also a key from the environment,
    /// which is never cached implicitly. Throws `.usage` in CI, before asking for anything, and
    /// `.unavailable` where the kernel refuses. Once the key is cached, `provider` is given it (vault's
    /// Secret Service provider, which the kernel keyring of this session does not reach).
    public func unlock(
        seconds: Int64, handingKeyTo provider: ((SecureBytes) throws(VaultError) -> Void)? = nil
    ) throws(VaultError) {
        guard let cache else { throw VaultError(.unavailable, "no unlock cache for \(path)") }
        guard cache.policy.mayStore else { throw VaultError(.usage, "keys are never cached in CI (CI is set)") }
        unlocking = true
        defer { unlocking = false }
        guard let opened = try load() else { throw VaultError(.notFound, "no vault file at \(path)") }
        try cache.store(opened.envelope, seconds: seconds)
        try provider?(opened.envelope.fileKeyBytes)
    }

    /// Until when the kernel keyring holds the key of the file as it is now, or nil (also when
    /// the file cannot be read: this answers `vault doctor`, which reports the file's own
    /// problems on its file line).
    public func unlockedUntil() -> Timestamp? {
        guard let cache, let file = try? FileSystem.readRegularFile(path, limit: Self.maximumFileSize) else {
            return nil
        }
        return cache.unlockedUntil(fileStartingWith: file)
    }

    /// Accepts the vault file's current header as this user's (`vault trust`): later writes
    /// encrypt to its recipients. Returns its stanza types. Needs no key: trusting a header is a
    /// decision about who may read what is written, not about opening the file.
    public func trustCurrentHeader() throws(VaultError) -> [StanzaType] {
        guard let trust else { throw VaultError(.usage, "no state folder to remember trusted recipients in") }
        guard exists else { throw VaultError(.notFound, "no vault file at \(path)") }
        let lock = try FileLock(file: FileSystem.resolvingLink(path))
        defer { withExtendedLifetime(lock) {} }
        guard let file = try FileSystem.readRegularFile(lock.path, limit: Self.maximumFileSize) else {
            throw VaultError(.notFound, "no vault file at \(path)")
        }
        let (header, types) = try ageCall(checking: file) { () throws(AgeError) in
            (try Age.header(of: file), try Age.stanzaTypes(of: file))
        }
        try trust.remember(header: header, types: types, path: lock.path)
        return types
    }

    // MARK: - Internals

    struct Opened {
        var plaintext: SecureBytes
        var envelope: AgeEnvelope
    }

    /// The last file this store decrypted whole or wrote, so that the next operation of this
    /// store decrypts nothing when nobody changed the file between.
    private var lastOpened: (file: [UInt8], opened: Opened)?

    /// The header and file key of the last file this store opened or wrote, so that opening it
    /// again (a `set` reads the old record, then rewrites the file; another writer may have come
    /// between) unwraps no key: no second scrypt.
    private var lastEnvelope: AgeEnvelope?

    /// Set during ``unlock(seconds:)``, which stores the key itself, for the time it asks for.
    private var unlocking = false

    /// A file key handed over by its owner (``adopt(fileKey:)``), checked against the header's MAC
    /// each time it is used; nil when none was.
    private var handedEnvelope: AgeEnvelope?

    /// Caches a key that was unlocked now, if a person had to unlock it (``FileKeys/neededPerson``).
    private func rememberUnlocked(_ envelope: AgeEnvelope) {
        guard !unlocking else { return }
        cache?.rememberUnlocked(envelope, neededPerson: keys.neededPerson())
    }

    /// The header and file key for the file that starts with `prefix` without unwrapping
    /// anything: the last one this store opened if the header is the same, else the one the
    /// kernel keyring holds for this header (checked against the header's MAC), else nil.
    private func knownEnvelope(_ prefix: [UInt8]) -> AgeEnvelope? {
        if let lastEnvelope, prefix.starts(with: lastEnvelope.headerBytes) { return lastEnvelope }
        if let handedEnvelope, prefix.starts(with: handedEnvelope.headerBytes) { return handedEnvelope }
        return cache?.envelope(forFileStartingWith: prefix)
    }

    /// Reads and decrypts the whole file (`target`, the resolved path, when the write lock is
    /// held), or returns `nil` if there is none (for writes).
    func load(_ target: String? = nil) throws(VaultError) -> Opened? {
        guard let file = try FileSystem.readRegularFile(target ?? path, limit: Self.maximumFileSize) else {
            return nil
        }
        if let lastOpened, lastOpened.file == file { return lastOpened.opened }
        let plaintext: SecureBytes
        let envelope: AgeEnvelope
        let known = knownEnvelope(file)
        let sameHeader = try known.flatMap { (known) throws(VaultError) in
            try ageCall(checking: file) { () throws(AgeError) in
                try AgePayloadReader(prefix: file, fileSize: file.count, envelope: known)
            }
        }
        if var reader = sameHeader, let known {
            plaintext = try ageCall(checking: file) { () throws(AgeError) in try reader.decryptRemaining(of: file) }
            envelope = known
        } else {
            let identities = try keys.identities()
            (plaintext, envelope) = try ageCall(checking: file) { () throws(AgeError) in
                try Age.open(file, identities: identities)
            }
            rememberUnlocked(envelope)
        }
        lastOpened = (file, Opened(plaintext: plaintext, envelope: envelope))
        lastEnvelope = envelope
        return Opened(plaintext: plaintext, envelope: envelope)
    }

    /// Calls `body` with the vault document, decrypted chunk by chunk while the file is read, or
    /// returns nil if there is no file. A file that cannot be read in pieces (ASCII armor, a very
    /// long header) is read whole instead.
    private func withDocument<T>(_ body: (any DocumentChunks) throws(VaultError) -> T) throws(VaultError) -> T? {
        guard let file = try OpenFile(reading: path) else { return nil }
        guard file.size <= Self.maximumFileSize else {
            throw VaultError(.other, "\(path) is larger than \(Self.maximumFileSize) bytes")
        }
        let prefix = try file.read(0..<min(file.size, AgePayloadReader.prefixSize))
        var reader: AgePayloadReader?
        if let known = knownEnvelope(prefix) {
            reader = try ageCall(checking: prefix) { () throws(AgeError) in
                try AgePayloadReader(prefix: prefix, fileSize: file.size, envelope: known)
            }
        }
        if reader == nil {
            let identities = try keys.identities()
            reader = try ageCall(checking: prefix) { () throws(AgeError) in
                try AgePayloadReader(prefix: prefix, fileSize: file.size, identities: identities)
            }
            if let envelope = reader?.envelope { rememberUnlocked(envelope) }
        }
        guard let reader else {
            guard let opened = try load() else { return nil }
            return try body(opened.plaintext)
        }
        lastEnvelope = reader.envelope
        return try body(DecryptingReader(file: file, reader: reader, store: self))
    }

    /// The plaintext of an open vault file, read and decrypted one age chunk at a time.
    private struct DecryptingReader: DocumentChunks {
        let file: OpenFile
        let reader: AgePayloadReader
        let store: FileStore

        /// Reads every chunk, whatever `body` has found: the payload must be intact to the last
        /// one (and end with the final-chunk flag) before the caller uses anything it saw.
        func forEachChunk(_ body: (UnsafeBufferPointer<UInt8>) throws(VaultError) -> Void) throws(VaultError) {
            var reader = reader
            var sealed: [UInt8] = []
            while let range = reader.nextChunk {
                try file.read(range, into: &sealed)
                // The plaintext is read in place and zeroed after; what `body` throws comes back
                // as the result, once the chunk is wiped.
                let read = try store.ageCall { () throws(AgeError) in
                    try sealed.withUnsafeBufferPointer { (bytes) throws(AgeError) in
                        try reader.open(UnsafeRawBufferPointer(bytes)) { plaintext in
                            Result { () throws(VaultError) in try body(plaintext.assumingMemoryBound(to: UInt8.self)) }
                        }
                    }
                }
                try read.get()
            }
        }
    }

    /// Runs one locked read-modify-write. `change` returns false when nothing changed.
    ///
    /// The file written is remembered as opened, so the next operation of this store does not
    /// decrypt it again (for a passphrase vault, that would be another scrypt per write).
    func modify(_ change: (inout [SecretRecord]) throws(VaultError) -> Bool) throws(VaultError) {
        let lock = try lockForWriting()
        defer { withExtendedLifetime(lock) {} }
        var records: [SecretRecord]
        let envelope: AgeEnvelope?
        if let opened = try load(lock.path) {
            records = try VaultDocument.decode(opened.plaintext)
            envelope = opened.envelope
        } else {
            records = []
            envelope = nil
        }
        guard try change(&records) else { return }
        records.sort { $0.name < $1.name }
        let document = VaultDocument.encode(records)
        let file: [UInt8]
        let written: AgeEnvelope
        if let envelope {
            try trust?.verify(header: envelope.headerBytes, types: envelope.stanzaTypes, path: lock.path)
            file = Age.seal(document, envelope: envelope)
            written = envelope
        } else {
            let recipients = try keys.recipientsForNewFile()
            (file, written) = try ageCall { () throws(AgeError) in
                try Age.encryptReturningEnvelope(document, to: recipients)
            }
            try HeaderRecord.record(header: written.headerBytes, previousFile: nil, lock: lock)
            try trust?.remember(
                header: written.headerBytes, types: written.stanzaTypes, path: lock.path, recipients: recipients)
        }
        try FileSystem.writeAtomically(file, lock: lock)
        if envelope == nil { rememberUnlocked(written) }
        lastOpened = (file, Opened(plaintext: document, envelope: written))
        lastEnvelope = written
    }

    /// Checks the vault path, creates its directory if needed and takes the write locks. A path
    /// that is a symbolic link is written through: the link is resolved once, here.
    private func lockForWriting() throws(VaultError) -> FileLock {
        let target = try FileSystem.resolvingLink(path)
        try FileSystem.checkRegularOrMissing(target)
        try FileSystem.makeDirectories(FileSystem.directory(of: target))
        return try FileLock(file: target)
    }

    /// The lock file beside the vault file (beside its target, if the path is a symbolic link).
    private var lockPath: String { ((try? FileSystem.resolvingLink(path)) ?? path) + ".lock" }

    /// Turns the age layer's errors into vault errors that name the file and the key's origin.
    ///
    /// When no key opens `file`, ``HeaderRecord`` decides between a wrong key and a damaged header;
    /// every other failure is ``AgeFailureMap``'s.
    func ageCall<T>(
        checking file: [UInt8]? = nil, _ body: () throws(AgeError) -> T
    ) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            var detail: String?
            if error.kind == .noMatch {
                if let file, HeaderRecord.provesDamage(file: file, lockPath: lockPath) {
                    throw VaultError(
                        .damaged, "\(path) is damaged: its header changed since vault wrote it, and no key opens it")
                }
                let types = file.flatMap { try? Age.stanzaTypes(of: $0) } ?? []
                let usable = types.filter(\.isReadable)
                // A plugin identity may read any stanza type, so a file of other types may be vault's.
                let anyType = (try? keys.identities())?.contains { $0.stanzaTypes.isEmpty } ?? false
                if file != nil, usable.isEmpty, !anyType {
                    // No key vault accepts could open it: a wrong-key status would only invite retries.
                    throw VaultError(
                        .damaged,
                        "\(path) is not a vault file: it is encrypted only to recipient types vault cannot use (vault uses \(Age.readableKeyKinds))"
                    )
                }
                detail = "it is encrypted to \(StanzaType.describe(anyType ? types : usable))"
            }
            throw AgeFailureMap.vaultError(
                error, opening: path, keyOrigin: keys.origin, naming: .keyOrigin, noMatchDetail: detail)
        }
    }
}

/// The provider's handed-over key (``SecretServiceServer``: `vault unlock` in another session).
extension FileStore: HandedFileKeyStore {
    package func adopt(fileKey: SecureBytes) throws(VaultError) {
        guard let file = try OpenFile(reading: path) else { throw VaultError(.notFound, "no vault file at \(path)") }
        let prefix = try file.read(0..<min(file.size, AgePayloadReader.prefixSize))
        let envelope = try ageCall(checking: prefix) { () throws(AgeError) in
            try Age.envelope(ofHeaderIn: prefix, fileKey: fileKey)
        }
        guard let envelope else { throw VaultError(.cannotUnlock, "\(path) cannot be opened with a file key") }
        handedEnvelope = envelope
    }

    package func forgetKeys() {
        handedEnvelope = nil
        lastEnvelope = nil
        lastOpened = nil
    }
}
