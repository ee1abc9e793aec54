import FoundationEssentials

/// The plaintext inside a vault file: JSON Lines, one header object then one object per secret.
///
/// ```
/// {"vault":1}
/// {"service":"vault","account":"gh-token","value":"Z2hwXzEyMw==","created":"2026-11-21T10:04:48Z","updated":"2026-11-21T10:04:48Z"}
/// ```
/// `value` is standard base64 with padding (values are bytes, not text); `expires` is present
/// only when set. Every line ends with a newline. docs/file-format.md is the full description.
/// Decoding is strict: an unknown key, a duplicate name or a malformed line is `.damaged`,
/// so that vault never rewrites a document it did not fully understand.
enum VaultDocument {
    /// The document version this code reads and writes.
    static let version: Int64 = 1

    /// Encodes records (in the given order) as a document.
    static func encode(_ records: [SecretRecord]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32 + records.reduce(0) { $0 + $1.value.count * 4 / 3 + 160 })
        out.append(contentsOf: "{\"vault\":\(version)}\n".utf8)
        for record in records {
            out.append(contentsOf: "{\"service\":".utf8)
            JSONLine.appendString(record.name.service, to: &out)
            out.append(contentsOf: ",\"account\":".utf8)
            JSONLine.appendString(record.name.account, to: &out)
            out.append(contentsOf: ",\"value\":\"".utf8)
            out.append(contentsOf: Data(record.value).base64EncodedString().utf8)
            out.append(contentsOf: "\",\"created\":\"\(record.metadata.created.rfc3339)\"".utf8)
            out.append(contentsOf: ",\"updated\":\"\(record.metadata.updated.rfc3339)\"".utf8)
            if let expires = record.metadata.expires {
                out.append(contentsOf: ",\"expires\":\"\(expires.rfc3339)\"".utf8)
            }
            out.append(contentsOf: "}\n".utf8)
        }
        return out
    }

    /// Decodes and validates the whole document.
    static func decode(_ document: [UInt8]) throws(VaultError) -> [SecretRecord] {
        var records: [SecretRecord] = []
        var seen = Set<SecretName>()
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            let fields = try parse(line, lineNumber: lineNumber)
            let record = try fields.record(lineNumber: lineNumber)
            guard seen.insert(record.name).inserted else {
                throw damaged(lineNumber, "the name \(JSONLine.shown(record.name.description)) appears twice")
            }
            records.append(record)
            return true
        }
        return records
    }

    /// Finds one record, decoding only its value. Other lines are scanned for their names only.
    static func find(_ name: SecretName, in document: [UInt8]) throws(VaultError) -> SecretRecord? {
        var found: SecretRecord?
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            let fields = try parse(line, lineNumber: lineNumber)
            guard fields.isComplete else { throw damaged(lineNumber, "a record needs service, account, value, created and updated") }
            guard fields.service == name.service, fields.account == name.account else { return true }
            found = try fields.record(lineNumber: lineNumber)
            return false
        }
        return found
    }

    /// Lists every record's name and metadata.
    ///
    /// The document is checked as strictly as by ``decode(_:)``, so that a listing never hides a
    /// damaged record: each value is decoded and wiped at once.
    static func entries(in document: [UInt8]) throws(VaultError) -> [SecretEntry] {
        var entries: [SecretEntry] = []
        var seen = Set<SecretName>()
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            var record = try parse(line, lineNumber: lineNumber).record(lineNumber: lineNumber)
            wipe(&record.value)
            guard seen.insert(record.name).inserted else {
                throw damaged(lineNumber, "the name \(JSONLine.shown(record.name.description)) appears twice")
            }
            entries.append(record.entry)
            return true
        }
        return entries
    }

    // MARK: - Lines

    /// Checks the header line, then calls `body` with each record line until it returns false.
    private static func forEachLine(
        _ document: [UInt8], _ body: (Int, ArraySlice<UInt8>) throws(VaultError) -> Bool
    ) throws(VaultError) {
        guard let headerEnd = document.firstIndex(of: 0x0A) else {
            throw VaultError(.damaged, "the vault document has no header line; this is not a vault file")
        }
        try checkHeader(document[..<headerEnd])
        var start = headerEnd + 1
        var lineNumber = 1
        while start < document.count {
            lineNumber += 1
            guard let end = document[start...].firstIndex(of: 0x0A) else {
                throw damaged(lineNumber, "the last line has no newline (the document is truncated)")
            }
            let line = document[start..<end]
            start = end + 1
            if line.isEmpty { continue }
            guard try body(lineNumber, line) else { return }
        }
    }

    private static func checkHeader(_ line: ArraySlice<UInt8>) throws(VaultError) {
        var version: Int64?
        do {
            try JSONLine.scanObject(line) { (key, value) throws(JSONLine.Failure) in
                guard key == "vault", case .integer(let v) = value else {
                    throw JSONLine.Failure(reason: "unknown header field \(JSONLine.shown(key))")
                }
                version = v
            }
        } catch {
            throw VaultError(.damaged, "the vault document header is not valid (\(error.reason)); this is not a vault file")
        }
        guard let version else {
            throw VaultError(.damaged, "the vault document header has no version; this is not a vault file")
        }
        guard version == Self.version else {
            throw VaultError(
                .damaged, "the vault document is version \(version); this vault reads version \(Self.version) (upgrade vault)")
        }
    }

    private static func damaged(_ line: Int, _ reason: String) -> VaultError {
        VaultError(.damaged, "the vault document is damaged at line \(line): \(reason)")
    }

    // MARK: - Records

    private struct Fields {
        var service: String?
        var account: String?
        var value: JSONLine.Value?
        var created: String?
        var updated: String?
        var expires: String?

        /// Whether every required key is present (checked without decoding values or times).
        var isComplete: Bool { service != nil && account != nil && value != nil && created != nil && updated != nil }

        func entry(lineNumber: Int) throws(VaultError) -> SecretEntry {
            guard let service, let account else { throw damaged(lineNumber, "a record needs a service and an account") }
            do {
                try SecretName.validate(service, what: "service")
                try SecretName.validate(account, what: "account")
            } catch {
                throw damaged(lineNumber, error.message)
            }
            return SecretEntry(
                name: SecretName(unchecked: service, account: account),
                metadata: SecretMetadata(
                    created: try time(created, "created", lineNumber), updated: try time(updated, "updated", lineNumber),
                    expires: try expires.map { (text) throws(VaultError) in try time(text, "expires", lineNumber) }))
        }

        func record(lineNumber: Int) throws(VaultError) -> SecretRecord {
            let entry = try entry(lineNumber: lineNumber)
            guard let value, var bytes = Self.decodeBase64(value) else {
                throw damaged(lineNumber, "the value is missing or not valid base64")
            }
            defer { bytes.resetBytes(in: 0..<bytes.count) }
            return SecretRecord(name: entry.name, value: [UInt8](bytes), metadata: entry.metadata)
        }

        /// Decodes a value from the line's own bytes when it has no escapes (always, when vault
        /// wrote it), so that no `String` copy of the secret, which could not be wiped, is made.
        private static func decodeBase64(_ value: JSONLine.Value) -> Data? {
            if case .string(let raw, escaped: false) = value {
                var text = Data(raw)
                defer { text.resetBytes(in: 0..<text.count) }
                return Data(base64Encoded: text)
            }
            return value.string.flatMap { Data(base64Encoded: $0) }
        }

        private func time(_ text: String?, _ key: String, _ lineNumber: Int) throws(VaultError) -> Timestamp {
            guard let text, let time = Timestamp(rfc3339: text) else {
                throw damaged(lineNumber, "'\(key)' is missing or not an RFC 3339 time")
            }
            return time
        }
    }

    private static func parse(_ line: ArraySlice<UInt8>, lineNumber: Int) throws(VaultError) -> Fields {
        var fields = Fields()
        var seenKeys = Set<String>()
        do {
            try JSONLine.scanObject(line) { (key, value) throws(JSONLine.Failure) in
                guard seenKeys.insert(key).inserted else {
                    throw JSONLine.Failure(reason: "duplicate key \(JSONLine.shown(key))")
                }
                func text() throws(JSONLine.Failure) -> String {
                    guard let s = value.string else {
                        throw JSONLine.Failure(reason: "\(JSONLine.shown(key)) must be a string")
                    }
                    return s
                }
                switch key {
                case "service": fields.service = try text()
                case "account": fields.account = try text()
                case "value": fields.value = value
                case "created": fields.created = try text()
                case "updated": fields.updated = try text()
                case "expires":
                    if case .null = value { break }
                    fields.expires = try text()
                default: throw JSONLine.Failure(reason: "unknown key \(JSONLine.shown(key))")
                }
            }
        } catch {
            throw damaged(lineNumber, error.reason)
        }
        return fields
    }
}
