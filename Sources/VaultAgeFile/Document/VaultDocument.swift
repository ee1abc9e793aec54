import FoundationEssentials
package import VaultSecureBytes
package import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The plaintext inside a vault file: JSON Lines, one header object then one object per secret.
///
/// ```
/// {"vault":1}
/// {"service":"vault","account":"gh-token","value":"Z2hwXzEyMw==","created":"2026-11-21T10:04:48Z","updated":"2026-11-21T10:04:48Z"}
/// ```
/// `value` is standard base64 with padding (values are bytes, not text); `expires` and `kind`
/// are present only when set. Every line ends with a newline. docs/file-format.md is the full description.
/// Decoding is strict: an unknown key, a duplicate name or a malformed line is `.damaged`,
/// so that vault never rewrites a document it did not fully understand.
package enum VaultDocument {
    /// The document version this code reads and writes.
    static let version: Int64 = 1

    /// Encodes records (in the given order) as a document.
    ///
    /// The document is built in secret bytes: each value's base64 is written straight into it, and
    /// the rest of a line (names and times, which are not secret) goes through one reused array.
    package static func encode(_ records: [SecretRecord]) -> SecureBytes {
        var out = SecureBytes()
        out.reserveCapacity(32 + records.reduce(0) { $0 + $1.value.count * 4 / 3 + 160 })
        var line: [UInt8] = []
        line.reserveCapacity(256)
        func flush() {
            line.withUnsafeBytes { out.append(contentsOf: $0) }
            line.removeAll(keepingCapacity: true)
        }
        line.append(contentsOf: "{\"vault\":\(version)}\n".utf8)
        for record in records {
            line.append(contentsOf: "{\"service\":".utf8)
            JSONString.append(record.name.service.utf8, to: &line)
            line.append(contentsOf: ",\"account\":".utf8)
            JSONString.append(record.name.account.utf8, to: &line)
            line.append(contentsOf: ",\"value\":\"".utf8)
            flush()
            out.appendBase64(of: record.value)
            line.append(contentsOf: "\",\"created\":\"".utf8)
            record.metadata.created.appendRFC3339(to: &line)
            line.append(contentsOf: "\",\"updated\":\"".utf8)
            record.metadata.updated.appendRFC3339(to: &line)
            line.append(0x22)
            if let expires = record.metadata.expires {
                line.append(contentsOf: ",\"expires\":\"".utf8)
                expires.appendRFC3339(to: &line)
                line.append(0x22)
            }
            if let kind = record.metadata.kind {
                line.append(contentsOf: ",\"kind\":".utf8)
                JSONString.append(kind.rawValue.utf8, to: &line)
            }
            line.append(contentsOf: "}\n".utf8)
        }
        flush()
        return out
    }

    /// Decodes and validates the whole document.
    package static func decode(_ document: some DocumentChunks) throws(VaultError) -> [SecretRecord] {
        var records: [SecretRecord] = []
        var seen = Set<SecretName>()
        // The values are slices of a few shared buffers, not one allocation each.
        var values = SecureBytes.Arena(bufferSize: valueBufferSize)
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            let fields = try parse(line, lineNumber: lineNumber)
            let record = try fields.record(lineNumber: lineNumber, values: &values)
            guard seen.insert(record.name).inserted else {
                throw damaged(lineNumber, "the name \(JSONLine.shown(record.name.description)) appears twice")
            }
            records.append(record)
            return true
        }
        return records
    }

    /// Finds one record, decoding only its value.
    ///
    /// The lines before it are not decoded. A line in the shape vault writes (`service`, then
    /// `account`, first) is passed over on its name alone when that settles it (see
    /// ``RecordNeedle``); any other line is scanned in full: known keys, each once, all required
    /// ones present. `set` and `rm` still check every line.
    static func find(_ name: SecretName, in document: some DocumentChunks) throws(VaultError) -> SecretRecord? {
        let needle = RecordNeedle(name)
        var found: SecretRecord?
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            if needle.certainlyNot(line) { return true }
            let fields = try parse(line, lineNumber: lineNumber)
            guard let lineService = fields.service, let lineAccount = fields.account, fields.isComplete else {
                throw damaged(lineNumber, "a record needs service, account, value, created and updated")
            }
            guard needle.account.matches(lineAccount), needle.service.matches(lineService) else { return true }
            var value = SecureBytes.Arena(bufferSize: 0)  // one value: a buffer of its size
            found = try fields.record(lineNumber: lineNumber, values: &value)
            return false
        }
        return found
    }

    /// Lists every record's name and metadata.
    ///
    /// The document is checked as strictly as by ``decode(_:)``, so that a listing never hides a
    /// damaged record: each value is decoded (into a shared buffer, zeroed when it is released).
    static func entries(in document: some DocumentChunks) throws(VaultError) -> [SecretEntry] {
        var entries: [SecretEntry] = []
        var seen = Set<SecretName>()
        var values = SecureBytes.Arena(bufferSize: valueBufferSize)
        try forEachLine(document) { (lineNumber, line) throws(VaultError) -> Bool in
            let record = try parse(line, lineNumber: lineNumber).record(lineNumber: lineNumber, values: &values)
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
    ///
    /// The lines are valid only during each call (``JSONLine/Bytes``). After `body` returns false
    /// the remaining pieces are still taken (a decrypting source checks them all) but not split.
    private static func forEachLine(
        _ document: some DocumentChunks, _ body: (Int, JSONLine.Bytes) throws(VaultError) -> Bool
    ) throws(VaultError) {
        var splitter = LineSplitter()
        var lineNumber = 0
        var stopped = false
        try document.forEachChunk { (chunk) throws(VaultError) in
            guard !stopped else { return }
            stopped = try !splitter.split(chunk) { (line) throws(VaultError) -> Bool in
                lineNumber += 1
                if lineNumber == 1 {
                    try checkHeader(line)
                    return true
                }
                return line.isEmpty ? true : try body(lineNumber, line)
            }
        }
        if stopped { return }
        if lineNumber == 0 {
            throw VaultError(.damaged, "the vault document has no header line; this is not a vault file")
        }
        if splitter.endsInsideALine {
            throw damaged(lineNumber + 1, "the last line has no newline (the document is truncated)")
        }
    }

    private static func checkHeader(_ line: JSONLine.Bytes) throws(VaultError) {
        var version: Int64?
        do {
            try JSONLine.scanObject(line) { (key, value) throws(JSONLine.Failure) in
                guard key.isASCII(headerKey), case .integer(let v) = value else {
                    throw JSONLine.Failure(reason: "unknown header field \(key.shown)")
                }
                version = v
            }
        } catch {
            throw VaultError(
                .damaged, "the vault document header is not valid (\(error.reason)); this is not a vault file")
        }
        guard let version else {
            throw VaultError(.damaged, "the vault document header has no version; this is not a vault file")
        }
        guard version == Self.version else {
            throw VaultError(
                .damaged,
                "the vault document is version \(version); this vault reads version \(Self.version) (upgrade vault)")
        }
    }

    private static func damaged(_ line: Int, _ reason: String) -> VaultError {
        VaultError(.damaged, "the vault document is damaged at line \(line): \(reason)")
    }

    private static let headerKey = Array("vault".utf8)

    /// The size of the shared buffers that hold decoded values: 64 KiB, about 1,600 values of 40 bytes.
    private static let valueBufferSize = 1 << 16

    // MARK: - Records

    /// The keys of a record line, in the order vault writes them.
    private enum Key: UInt8, CaseIterable {
        case service, account, value, created, updated, expires, kind

        var bit: UInt8 { 1 << rawValue }

        var name: String {
            switch self {
            case .service: "service"
            case .account: "account"
            case .value: "value"
            case .created: "created"
            case .updated: "updated"
            case .expires: "expires"
            case .kind: "kind"
            }
        }

        static let spellings: [(key: Key, bytes: [UInt8])] = allCases.map { ($0, Array($0.name.utf8)) }

        /// The key spelled by `raw`, compared as bytes (no `String` is built for a known key):
        /// chosen by length and first byte, then confirmed.
        init?(_ raw: JSONLine.RawString) {
            let candidate: Key
            switch (raw.escaped ? 0 : raw.raw.count, raw.raw.first) {
            case (7, UInt8(ascii: "s")): candidate = .service
            case (7, UInt8(ascii: "a")): candidate = .account
            case (5, UInt8(ascii: "v")): candidate = .value
            case (7, UInt8(ascii: "c")): candidate = .created
            case (7, UInt8(ascii: "u")): candidate = .updated
            case (7, UInt8(ascii: "e")): candidate = .expires
            case (4, UInt8(ascii: "k")): candidate = .kind
            default:
                guard let match = Key.spellings.first(where: { raw.isASCII($0.bytes) }) else { return nil }
                candidate = match.key
            }
            guard raw.isASCII(Key.spellings[Int(candidate.rawValue)].bytes) else { return nil }
            self = candidate
        }
    }

    /// A record line as scanned: each field still raw, decoded only by ``entry(lineNumber:)`` and
    /// ``record(lineNumber:)``, so a `get` never decodes the lines it is not looking for.
    private struct Fields {
        var service: JSONLine.RawString?
        var account: JSONLine.RawString?
        var value: JSONLine.Value?
        var created: JSONLine.RawString?
        var updated: JSONLine.RawString?
        var expires: JSONLine.RawString?
        var kind: JSONLine.RawString?

        /// Whether every required key is present (checked without decoding values or times).
        var isComplete: Bool { service != nil && account != nil && value != nil && created != nil && updated != nil }

        func entry(lineNumber: Int) throws(VaultError) -> SecretEntry {
            guard let rawService = service, let rawAccount = account else {
                throw damaged(lineNumber, "a record needs a service and an account")
            }
            guard let service = rawService.string, let account = rawAccount.string else {
                throw damaged(lineNumber, "the service or account is not valid UTF-8 or has an invalid escape")
            }
            do {
                try SecretName.validate(service, what: "service")
                try SecretName.validate(account, what: "account")
            } catch {
                throw damaged(lineNumber, error.message)
            }
            return SecretEntry(
                name: SecretName(unchecked: service, account: account),
                metadata: SecretMetadata(
                    created: try time(created, "created", lineNumber),
                    updated: try time(updated, "updated", lineNumber),
                    expires: try expires.map { (text) throws(VaultError) in try time(text, "expires", lineNumber) },
                    kind: try kind.map { (raw) throws(VaultError) in
                        guard let text = raw.string, let kind = SecretKind(rawValue: text) else {
                            throw damaged(lineNumber, "'kind' is not a kind's name (a-z, 0-9 and -)")
                        }
                        return kind
                    }))
        }

        /// The record, its value decoded into a slice of `values`.
        func record(lineNumber: Int, values: inout SecureBytes.Arena) throws(VaultError) -> SecretRecord {
            let entry = try entry(lineNumber: lineNumber)
            guard let value, let bytes = Self.decodeBase64(value, values: &values) else {
                throw damaged(lineNumber, "the value is missing or not valid base64")
            }
            return SecretRecord(name: entry.name, value: bytes, metadata: entry.metadata)
        }

        /// Decodes a value from the line's own bytes when it is canonical base64 without escapes
        /// (always, when vault wrote it), so that no copy of the secret that is not wiped, no
        /// `String` and no `Data`, is made. Anything else goes through Foundation's decoder, which
        /// decides what is accepted, as it always has.
        private static func decodeBase64(_ value: JSONLine.Value, values: inout SecureBytes.Arena) -> SecureBytes? {
            if case .string(let raw) = value, !raw.escaped,
                let bytes = values.decodingBase64(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: raw.raw)))
            {
                return bytes
            }
            guard var data = value.string.flatMap({ Data(base64Encoded: $0) }) else { return nil }
            defer { wipe(&data) }
            return SecureBytes(data)
        }

        private func time(
            _ raw: JSONLine.RawString?, _ key: String, _ lineNumber: Int
        ) throws(VaultError) -> Timestamp {
            let parsed: Timestamp?
            if let raw, !raw.escaped {
                parsed = Timestamp(rfc3339Bytes: UnsafeBufferPointer(rebasing: raw.raw))
            } else {
                parsed = raw?.string.flatMap(Timestamp.init(rfc3339:))
            }
            guard let time = parsed else {
                throw damaged(lineNumber, "'\(key)' is missing or not an RFC 3339 time")
            }
            return time
        }
    }

    /// Scans a record line: known keys only, each at most once, strings where strings belong.
    private static func parse(_ line: JSONLine.Bytes, lineNumber: Int) throws(VaultError) -> Fields {
        var fields = Fields()
        var seen: UInt8 = 0
        do {
            try JSONLine.scanObject(line) { (rawKey, value) throws(JSONLine.Failure) in
                guard let key = Key(rawKey) else {
                    throw JSONLine.Failure(reason: "unknown key \(rawKey.shown)")
                }
                guard seen & key.bit == 0 else { throw JSONLine.Failure(reason: "duplicate key '\(key.name)'") }
                seen |= key.bit
                func text() throws(JSONLine.Failure) -> JSONLine.RawString {
                    guard case .string(let raw) = value else {
                        throw JSONLine.Failure(reason: "'\(key.name)' must be a string")
                    }
                    return raw
                }
                switch key {
                case .service: fields.service = try text()
                case .account: fields.account = try text()
                case .value: fields.value = value
                case .created: fields.created = try text()
                case .updated: fields.updated = try text()
                case .expires:
                    if case .null = value { break }
                    fields.expires = try text()
                case .kind: fields.kind = try text()
                }
            }
        } catch {
            throw damaged(lineNumber, error.reason)
        }
        return fields
    }
}
