internal import VaultSecureBytes

/// ASCII armor: strict PEM (RFC 7468 §3) with the label "AGE ENCRYPTED FILE".
///
/// Accepted: whitespace-only lines before the BEGIN line and whitespace after the END line, LF or
/// CRLF line endings, and a missing line ending after END. Everything else is rejected: headers,
/// blank lines, spaces in or around lines, lines other than the last that are not exactly 64 columns,
/// an empty last line, and base64 that is not canonical with `=` padding.
enum Armor {
    static let beginLine = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
    static let endLine = Array("-----END AGE ENCRYPTED FILE-----".utf8)
    static let columnsPerLine = 64

    /// Whether a file should be read as armor rather than as a binary age file.
    ///
    /// Binary files start with the version line; anything else that looks like PEM (its first
    /// non-blank character is `-`, or it contains a BEGIN marker) is armor, so that armor with
    /// garbage around it is reported as bad armor rather than as a bad header.
    static func looksArmored(_ file: [UInt8]) -> Bool {
        if file.starts(with: Header.versionPrefix.utf8) { return false }
        if let first = file.first(where: { !isWhitespace($0) }), first == UInt8(ascii: "-") { return true }
        return contains(file, Array("-----BEGIN".utf8))
    }

    /// Decodes an armored file to the binary age file it carries.
    static func decode(_ file: [UInt8]) throws(AgeError) -> [UInt8] {
        var lines = ArmorLines(bytes: file)
        var line = lines.next()
        // Leading whitespace-only lines are allowed.
        while let current = line, current.allSatisfy(isWhitespace), !lines.atEnd {
            line = lines.next()
        }
        guard let first = line, first.elementsEqual(beginLine) else {
            throw .armor("armor does not start with \"-----BEGIN AGE ENCRYPTED FILE-----\"")
        }
        var bodyLines: [ArraySlice<UInt8>] = []
        while true {
            guard !lines.atEnd, let current = lines.next() else { throw .armor("armor has no END line") }
            if current.elementsEqual(endLine) { break }
            bodyLines.append(current)
        }
        guard lines.remainder.allSatisfy(isWhitespace) else { throw .armor("data after the armor END line") }

        var output: [UInt8] = []
        for (index, bodyLine) in bodyLines.enumerated() {
            let isLast = index == bodyLines.count - 1
            guard isLast ? (1...columnsPerLine).contains(bodyLine.count) : bodyLine.count == columnsPerLine else {
                throw .armor("armor line \(index + 2) has the wrong length")
            }
            guard let decoded = Base64.decodePadded(bodyLine), isLast || decoded.count == columnsPerLine / 4 * 3
            else {
                throw .armor("armor line \(index + 2) is not canonical padded base64")
            }
            output += decoded
        }
        return output
    }

    /// Armors a binary age file: BEGIN line, 64-column padded base64, END line, each ending in LF.
    static func encode(_ file: [UInt8]) -> [UInt8] {
        let body = Base64.encodePadded(file)
        var output = beginLine + [UInt8(ascii: "\n")]
        var start = 0
        while start < body.count {
            let end = min(start + columnsPerLine, body.count)
            output += body[start..<end]
            output.append(UInt8(ascii: "\n"))
            start = end
        }
        output += endLine + [UInt8(ascii: "\n")]
        return output
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// Splits armor into lines ending in LF or CRLF; the last line may lack its ending.
private struct ArmorLines {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset >= bytes.count }
    var remainder: ArraySlice<UInt8> { bytes[offset...] }

    /// The next line without its LF or CRLF, or nil at the end of the input.
    mutating func next() -> ArraySlice<UInt8>? {
        guard !atEnd else { return nil }
        let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        var line = bytes[offset..<end]
        offset = min(end + 1, bytes.count)
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return line
    }
}
