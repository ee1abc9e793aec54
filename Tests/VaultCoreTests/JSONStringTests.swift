import Testing

@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultSystem

/// The one JSON string escaper, shared by the vault document, `export --format json` and `--json`.
@Suite struct JSONStringTests {
    func quoted(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        JSONString.append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("quotes and backslashes are escaped, other printable ASCII is kept")
    func quotesAndBackslashes() {
        #expect(JSONString.quoted(#"a "b" \c/ d"#) == #""a \"b\" \\c/ d""#)
        #expect(JSONString.quoted("") == #""""#)
    }

    @Test("control characters: \\n, \\r and \\t by name, the rest and DEL as \\u00xx in lower case")
    func controlCharacters() {
        #expect(JSONString.quoted("\n\r\t") == #""\n\r\t""#)
        #expect(
            quoted([0x00, 0x01, 0x08, 0x0B, 0x0C, 0x1B, 0x1F, 0x7F])
                == #""\u0000\u0001\u0008\u000b\u000c\u001b\u001f\u007f""#)
        #expect(quoted([0x20, 0x7E]) == "\" ~\"")
    }

    @Test("non-ASCII text, U+2028 and U+2029 included, is written as UTF-8 unchanged")
    func nonASCII() {
        for text in ["é", "名前", "🔑", "a\u{2028}b\u{2029}c", "\u{FEFF}", "\u{85}"] {
            #expect(JSONString.quoted(text) == "\"" + text + "\"", "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test("every byte below 0x80 and some non-ASCII text read back through the document's unescape")
    func roundTrip() throws {
        let texts = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é\u{2028}🔑", "\"\\\u{0}x"]
        for text in texts {
            var out: [UInt8] = []
            JSONString.append(text.utf8, to: &out)
            #expect(out.first == 0x22 && out.last == 0x22)
            let body = Array(out.dropFirst().dropLast())
            let decoded = body.withUnsafeBufferPointer { JSONLine.unescape($0[...]) }
            #expect(decoded == text, "\(Array(text.utf8))")
            #expect(JSONString.quoted(text) == String(decoding: out, as: UTF8.self))
        }
    }
}
