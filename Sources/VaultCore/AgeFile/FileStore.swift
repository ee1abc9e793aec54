public import VaultAge

/// A vault kept in one age-encrypted file (see docs/file-format.md).
///
/// Reads take no lock: writers replace the file by rename, so a reader sees the old or the new
/// file, never a mix. Writes lock `<path>.lock`, read, modify, and replace the file atomically
/// (``FileSystem/writeAtomically(_:_:)``). The age header is kept across writes, so a
/// passphrase-protected vault pays for scrypt once per command, not twice.
public final class FileStore: SecretStore {
    /// The vault file.
    public let path: String
    private let keys: FileKeys

    /// The largest vault file this store reads.
    static let maximumFileSize = 1 << 30

    public init(path: String, keys: FileKeys) {
        self.path = path
        self.keys = keys
    }

    public var label: String { "file \(path)" }

    public func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        guard let document = try load()?.plaintext else { return nil }
        return try VaultDocument.find(name, in: document)
    }

    public func list(service: String?) throws(VaultError) -> [SecretEntry] {
        guard let document = try load()?.plaintext else { return [] }
        return try VaultDocument.entries(in: document)
            .filter { service == nil || $0.name.service == service }
            .sorted { $0.name < $1.name }
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
    public func create(recipients: [AgeRecipient]) throws(VaultError) {
        try FileSystem.checkRegularOrMissing(path)
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        let lock = try FileLock(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        guard !exists else {
            throw VaultError(.conflict, "a vault already exists at \(path); use 'vault rekey' to change its keys")
        }
        let (file, envelope) = try ageCall { () throws(AgeError) in
            try Age.encryptReturningEnvelope(VaultDocument.encode([]), to: recipients)
        }
        try HeaderRecord.record(header: envelope.headerBytes, previousFile: nil, lock: lock)
        try FileSystem.writeAtomically(path, file)
    }

    /// Rewrites every record under new recipients with a fresh file key, atomically.
    public func rekey(to recipients: [AgeRecipient]) throws(VaultError) {
        let lock = try FileLock(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        guard let opened = try load(), let previous = lastOpened?.file else {
            throw VaultError(.notFound, "no vault file at \(path)")
        }
        _ = try VaultDocument.decode(opened.plaintext)  // never rewrite a document we cannot read
        let (file, envelope) = try ageCall { () throws(AgeError) in
            try Age.encryptReturningEnvelope(opened.plaintext, to: recipients)
        }
        try HeaderRecord.record(header: envelope.headerBytes, previousFile: previous, lock: lock)
        try FileSystem.writeAtomically(path, file)
        lastOpened = nil
    }

    // MARK: - Internals

    struct Opened {
        var plaintext: [UInt8]
        var envelope: AgeEnvelope
    }

    /// The last file this store decrypted, so that a command's read-then-write (`set` reads the
    /// old record to keep its creation time) decrypts once when nobody changed the file between.
    private var lastOpened: (file: [UInt8], opened: Opened)?

    /// Reads and decrypts the file, or returns `nil` if there is none.
    func load() throws(VaultError) -> Opened? {
        guard let file = try FileSystem.readRegularFile(path, limit: Self.maximumFileSize) else { return nil }
        if let lastOpened, lastOpened.file == file { return lastOpened.opened }
        let identities = try keys.identities()
        let (plaintext, envelope) = try ageCall(checking: file) { () throws(AgeError) in
            try Age.open(file, identities: identities)
        }
        let opened = Opened(plaintext: plaintext, envelope: envelope)
        lastOpened = (file, opened)
        return opened
    }

    deinit {
        forgetOpened()
    }

    /// Runs one locked read-modify-write. `change` returns false when nothing changed.
    ///
    /// The file written is remembered as opened, so the next operation of this store does not
    /// decrypt it again (for a passphrase vault, that would be another scrypt per write).
    func modify(_ change: (inout [SecretRecord]) throws(VaultError) -> Bool) throws(VaultError) {
        try FileSystem.checkRegularOrMissing(path)
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        let lock = try FileLock(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        var records: [SecretRecord]
        let envelope: AgeEnvelope?
        if let opened = try load() {
            records = try VaultDocument.decode(opened.plaintext)
            envelope = opened.envelope
        } else {
            records = []
            envelope = nil
        }
        defer { for index in records.indices { wipe(&records[index].value) } }
        guard try change(&records) else { return }
        records.sort { $0.name < $1.name }
        var document = VaultDocument.encode(records)
        var remembered = false
        defer { if !remembered { wipe(&document) } }
        let file: [UInt8]
        let written: AgeEnvelope
        if let envelope {
            file = Age.seal(document, envelope: envelope)
            written = envelope
        } else {
            let recipients = try keys.recipientsForNewFile()
            (file, written) = try ageCall { () throws(AgeError) in
                try Age.encryptReturningEnvelope(document, to: recipients)
            }
            try HeaderRecord.record(header: written.headerBytes, previousFile: nil, lock: lock)
        }
        try FileSystem.writeAtomically(path, file)
        forgetOpened()
        lastOpened = (file, Opened(plaintext: document, envelope: written))
        remembered = true
    }

    /// Drops the remembered plaintext, wiping it.
    private func forgetOpened() {
        if var plaintext = lastOpened?.opened.plaintext {
            lastOpened = nil
            wipe(&plaintext)
        }
    }

    /// Turns the age layer's errors into vault errors that name the file and the key's origin.
    ///
    /// When no key opens `file`, ``HeaderRecord`` decides between a wrong key and a damaged header.
    private func ageCall<T>(checking file: [UInt8]? = nil, _ body: () throws(AgeError) -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            switch error.kind {
            case .noMatch:
                if let file, HeaderRecord.provesDamage(file: file, lockPath: path + ".lock") {
                    throw VaultError(
                        .damaged, "\(path) is damaged: its header changed since vault wrote it, and no key opens it")
                }
                let types = file.flatMap { try? Age.stanzaTypes(of: $0) } ?? []
                let usable = types.filter { $0 == "X25519" || $0 == "scrypt" }
                if file != nil, usable.isEmpty {
                    // No key vault accepts could open it: a wrong-key status would only invite retries.
                    throw VaultError(
                        .damaged,
                        "\(path) is not a vault file: it is encrypted only to recipient types vault cannot use (vault uses age X25519 keys and passphrases)"
                    )
                }
                let kind = usable == ["scrypt"] ? "a passphrase" : "\(usable.count) age public key(s)"
                throw VaultError(
                    .cannotUnlock, "the key from \(keys.origin) does not unlock \(path) (it is encrypted to \(kind))")
            case .invalidKey:
                throw VaultError(.cannotUnlock, "\(keys.origin): \(error.message)")
            case .header, .hmac, .payload, .armor, .workFactor:
                throw VaultError(.damaged, "\(path) is damaged or not an age file: \(error.message)")
            }
        }
    }
}
