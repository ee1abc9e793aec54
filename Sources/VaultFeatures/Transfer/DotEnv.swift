public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// The dotenv format, read by `vault import` and written by `vault export` (docs/vault.1, "DOTENV").
///
/// A dotenv KEY is the secret's NAME, unchanged: 1 to 255 of the ASCII letters, digits and
/// `_ . - /`. Reading follows the common rules:
///
/// - blank lines and lines whose first non-blank character is `#` are skipped; CRLF and lone CR
///   line endings are read as LF, also inside quotes (Node dotenv, dotenvx and python-dotenv read
///   a lone CR as a line end; merging the lines would hide keys in a value), and a UTF-8 byte
///   order mark at the start is skipped;
/// - `export ` before a key is accepted and ignored; blanks around `=` are allowed;
/// - `"double quotes"` understand `\n`, `\r`, `\t`, `\"` and `\\`; any other backslash is kept
///   as it is;
/// - `'single quotes'` are literal, but `\'` does not end them and stays two characters, as in
///   Node dotenv, dotenvx and compose-go (python-dotenv alone drops the backslash), so a file
///   python-dotenv's `set_key` wrote (`a='b\'c'`) is read; both kinds of quotes may span lines;
/// - an unquoted value ends at the end of the line or at a `#` that follows a blank, and loses
///   its surrounding blanks;
/// - nothing is expanded: `$HOME` is five characters.
///
/// A key given twice is an error, as is anything else that does not fit; errors name the line
/// and, once a line is a `KEY=` assignment, its key, but never quote a line that is not one.
public enum DotEnv {
    /// One `KEY=value` assignment and the line it starts on.
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: [UInt8]
        public var line: Int
    }

    /// Whether `key` can be written as a dotenv key: 1 or more of `A-Z a-z 0-9 _ . - /`.
    public static func isValidKey(_ key: some Collection<UInt8>) -> Bool {
        !key.isEmpty && key.allSatisfy(isKeyByte)
    }

    static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"),
            UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// Parses a whole dotenv file. Throws `.usage` naming the first malformed line.
    public static func parse(_ input: SecureBytes) throws(VaultError) -> [Entry] {
        try input.withTemporaryArray { (array) throws(VaultError) in try parse(array) }
    }

    public static func parse(_ input: [UInt8]) throws(VaultError) -> [Entry] {
        var parser = DotEnvParser(input)
        return try parser.parse()
    }

    /// Writes records as dotenv, one `NAME=value` line each.
    ///
    /// A value made only of letters, digits and `_ - . / : @ % + , =` is written bare; one
    /// without `'`, CR or LF that does not end with `\` in single quotes; any other in double
    /// quotes with `\\`, `\"`, `\n` and `\r` escaped. A name that is not a dotenv key, or a value
    /// that is not UTF-8 text (invalid UTF-8 or a NUL byte), is a usage error naming the secret:
    /// use JSON for those.
    public static func encode(_ records: [SecretRecord]) throws(VaultError) -> SecureBytes {
        var out = SecureBytes()
        for record in records {
            let account = record.name.account
            guard isValidKey(account.utf8) else {
                throw VaultError(
                    .usage,
                    "'\(account)' cannot be a dotenv key (only letters, digits and _ . - / are)", remedy: .useJSONFormat
                )
            }
            if let kind = record.metadata.kind {
                throw VaultError(
                    .usage, "'\(account)' is a \(kind) secret, and dotenv cannot say so", remedy: .useJSONFormat)
            }
            guard record.value.isText else {
                throw VaultError(
                    .usage, "the value of '\(account)' is binary (a NUL byte or invalid UTF-8)", remedy: .useJSONFormat)
            }
            out += account.utf8
            out.append(UInt8(ascii: "="))
            appendQuoted(record.value, to: &out)
            out.append(0x0A)
        }
        return out
    }

    /// Appends `value` quoted as ``encode(_:)`` says, with no copy of it on the way.
    static func appendQuoted(_ value: SecureBytes, to out: inout SecureBytes) {
        if value.allSatisfy(isBareByte) {
            out += value
            return
        }
        // A final `\` would make the closing quote `\'`, which does not close.
        if !value.contains(where: { $0 == UInt8(ascii: "'") || $0 == 0x0A || $0 == 0x0D }),
            value.last != UInt8(ascii: "\\")
        {
            out.append(UInt8(ascii: "'"))
            out += value
            out.append(UInt8(ascii: "'"))
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in value {
            switch byte {
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case 0x0A: out += "\\n".utf8
            case 0x0D: out += "\\r".utf8
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func isBareByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "_-./:@%+,=".utf8.contains(byte)
        }
    }
}

/// The dotenv reader: one pass over the bytes, keeping the line number for errors.
struct DotEnvParser {
    private var bytes: [UInt8]
    private var i = 0
    private var line = 1

    init(_ input: [UInt8]) {
        var input = input
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input.removeFirst(3) }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(input.count)
        for (index, byte) in input.enumerated()
        where !(byte == 0x0D && index + 1 < input.count && input[index + 1] == 0x0A) {
            normalized.append(byte == 0x0D ? 0x0A : byte)
        }
        bytes = normalized
    }

    private func fail(_ reason: String, line: Int? = nil) -> VaultError {
        VaultError(.usage, "dotenv line \(line ?? self.line): \(reason)")
    }

    private var atEnd: Bool { i >= bytes.count }
    private var current: UInt8 { bytes[i] }

    private mutating func skipBlanks() {
        while !atEnd, current == 0x20 || current == 0x09 { i += 1 }
    }

    mutating func parse() throws(VaultError) -> [DotEnv.Entry] {
        var entries: [DotEnv.Entry] = []
        var seen: [String: Int] = [:]
        while !atEnd {
            skipBlanks()
            if atEnd { break }
            if current == 0x0A {
                i += 1
                line += 1
                continue
            }
            if current == UInt8(ascii: "#") {
                while !atEnd, current != 0x0A { i += 1 }
                continue
            }
            let start = line
            let entry = try assignment()
            if let earlier = seen[entry.key] {
                throw fail("\(entry.key) is already set on line \(earlier)", line: start)
            }
            seen[entry.key] = start
            entries.append(entry)
        }
        return entries
    }

    /// Reads `[export ]KEY = value` up to and including the end of its (last) line.
    private mutating func assignment() throws(VaultError) -> DotEnv.Entry {
        let start = line
        if bytes[i...].starts(with: "export".utf8), i + 6 < bytes.count, bytes[i + 6] == 0x20 || bytes[i + 6] == 0x09 {
            i += 6
            skipBlanks()
        }
        let keyStart = i
        while !atEnd, DotEnv.isKeyByte(current) { i += 1 }
        let key = String(decoding: bytes[keyStart..<i], as: UTF8.self)
        skipBlanks()
        // Never quote the line: without its '=' it may be a bare token or a line of a PEM key.
        guard !key.isEmpty, !atEnd, current == UInt8(ascii: "=") else {
            throw fail("expected KEY=VALUE (a key is letters, digits and _ . - /); the line is not shown")
        }
        i += 1
        do {
            try SecretName.validate(key, what: "key")
        } catch {
            throw fail(error.message)
        }
        let blankAfterEquals = !atEnd && (current == 0x20 || current == 0x09)
        skipBlanks()
        let value: [UInt8]
        if !atEnd, current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") {
            value = try quoted(key: key)
            skipBlanks()
            if !atEnd, current == UInt8(ascii: "#") {
                while !atEnd, current != 0x0A { i += 1 }
            }
            guard atEnd || current == 0x0A else { throw fail("unexpected text after the closing quote of \(key)") }
        } else {
            value = unquoted(afterBlank: blankAfterEquals)
        }
        return DotEnv.Entry(key: key, value: value, line: start)
    }

    /// An unquoted value: up to the end of the line or a `#` after a blank, trimmed of blanks.
    private mutating func unquoted(afterBlank: Bool) -> [UInt8] {
        var value: [UInt8] = []
        var previousIsBlank = afterBlank  // `KEY=#x` is the value `#x`; `KEY= #x` is empty
        var inComment = false
        while !atEnd, current != 0x0A {
            let byte = current
            i += 1
            if inComment { continue }
            if byte == UInt8(ascii: "#"), previousIsBlank {
                inComment = true
                continue
            }
            previousIsBlank = byte == 0x20 || byte == 0x09
            value.append(byte)
        }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        return value
    }

    /// A single- or double-quoted value, from the opening quote to just after the closing one.
    private mutating func quoted(key: String) throws(VaultError) -> [UInt8] {
        let quote = current
        let start = line
        i += 1
        var value: [UInt8] = []
        while true {
            guard !atEnd else {
                let kind = quote == UInt8(ascii: "'") ? "single" : "double"
                throw fail("the \(kind)-quoted value of \(key) has no closing quote", line: start)
            }
            let byte = current
            i += 1
            if byte == quote { return value }
            if byte == 0x0A { line += 1 }
            if quote == UInt8(ascii: "'"), byte == UInt8(ascii: "\\"), !atEnd, current == quote {
                value += [byte, quote]
                i += 1
                continue
            }
            guard quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\"), !atEnd else {
                value.append(byte)
                continue
            }
            let escaped = current
            switch escaped {
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "r"): value.append(0x0D)
            case UInt8(ascii: "t"): value.append(0x09)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): value.append(escaped)
            default:
                value.append(byte)
                continue  // keep the backslash; the next byte is read as usual
            }
            i += 1
        }
    }
}
