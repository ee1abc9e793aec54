import Testing
import VaultCore
import VaultSecureBytes

@testable import VaultFeatures
@testable import VaultStorage

/// The dotenv reader and writer, without a store.
@Suite("dotenv")
struct DotEnvTests {
    func parse(_ text: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in try DotEnv.parse(Array(text.utf8)) {
            result[entry.key] = String(decoding: entry.value, as: UTF8.self)
        }
        return result
    }

    @Test("the common quoting rules")
    func quoting() throws {
        let text = """
            # a comment line

              # an indented comment
            PLAIN=value
            SPACED = spaced value
            COMMENT=value # a comment
            HASH=va#lue
            LEADING_HASH=#value
            ONLY_COMMENT= # nothing
            EMPTY=
            EMPTY_DQ=""
            EMPTY_SQ=''
            EQUALS=a=b==c
            export EXPORTED=yes
            DQ="a \\"quoted\\" \\\\ \\n newline\\ttab\\r"
            DQ_HASH="# not a comment" # but this is
            SQ='literal \\n $HOME "x" # no comment'
            UNKNOWN_ESCAPE="\\x\\$"
            MULTI="line one
            line two"
            MULTI_SQ='a
            b'
            ci/npm-token=slash
            dots.and-dashes=ok
            INNER_QUOTES=it's "fine"
            """
        let parsed = try parse(text)
        #expect(parsed["PLAIN"] == "value")
        #expect(parsed["SPACED"] == "spaced value")
        #expect(parsed["COMMENT"] == "value")
        #expect(parsed["HASH"] == "va#lue")
        #expect(parsed["LEADING_HASH"] == "#value")
        #expect(parsed["ONLY_COMMENT"] == "")
        #expect(parsed["EMPTY"] == "")
        #expect(parsed["EMPTY_DQ"] == "")
        #expect(parsed["EMPTY_SQ"] == "")
        #expect(parsed["EQUALS"] == "a=b==c")
        #expect(parsed["EXPORTED"] == "yes")
        #expect(parsed["DQ"] == "a \"quoted\" \\ \n newline\ttab\r")
        #expect(parsed["DQ_HASH"] == "# not a comment")
        #expect(parsed["SQ"] == "literal \\n $HOME \"x\" # no comment")
        #expect(parsed["UNKNOWN_ESCAPE"] == "\\x\\$")
        #expect(parsed["MULTI"] == "line one\nline two")
        #expect(parsed["MULTI_SQ"] == "a\nb")
        #expect(parsed["ci/npm-token"] == "slash")
        #expect(parsed["dots.and-dashes"] == "ok")
        #expect(parsed["INNER_QUOTES"] == "it's \"fine\"")
        #expect(parsed.count == 20)
        #expect(try parse("T=trail \t \nU = \t both\t\n") == ["T": "trail", "U": "both"])
    }

    @Test("CRLF and lone CR line endings and a byte order mark")
    func crlf() throws {
        let parsed = try parse("\u{FEFF}A=1\r\nB=\"x\r\ny\"\r\nC='z'\r\n\r\nD=lone\rcr=2\n")
        #expect(parsed == ["A": "1", "B": "x\ny", "C": "z", "D": "lone", "cr": "2"])
        // Node dotenv's, dotenvx's and python-dotenv's tests: a lone CR ends a line, never merges two.
        #expect(
            try parse("SERVER=localhost\rPASSWORD=password\rDB=tests\r")
                == ["SERVER": "localhost", "PASSWORD": "password", "DB": "tests"])
        #expect(try parse("A='x\ry'\rB=\"1\r2\"\r") == ["A": "x\ny", "B": "1\n2"])
        let lines = try DotEnv.parse(Array("A=1\rB=2\r\rC=3".utf8))
        #expect(lines.map(\.line) == [1, 2, 4])
    }

    @Test("\\' inside single quotes does not end the value and keeps its backslash, as most parsers read it")
    func escapedSingleQuote() throws {
        // python-dotenv's set_key writes `a='b\'c'`; Node dotenv, dotenvx and compose-go read `b\'c`.
        #expect(try parse("a='b\\'c'\n") == ["a": "b\\'c"])
        #expect(try parse("A='it\\'s' # comment\nB='x\\y'\n") == ["A": "it\\'s", "B": "x\\y"])
        #expect(try parse("A='one\\'\ntwo'\n") == ["A": "one\\'\ntwo"])
    }

    @Test("line numbers count the lines of multi-line values")
    func lineNumbers() throws {
        let entries = try DotEnv.parse(Array("# c\nA=1\nB=\"x\ny\"\n\nC=3\n".utf8))
        #expect(entries.map(\.line) == [2, 3, 6])
    }

    @Test(
        "malformed input names its line",
        arguments: [
            ("A=1\nnot an assignment\n", "dotenv line 2: expected KEY=VALUE"),
            ("A=1\n=value\n", "dotenv line 2: expected KEY=VALUE"),
            ("A=1\n\nB=\"open\n", "dotenv line 3: the double-quoted value of B has no closing quote"),
            ("A='open\nB=2\n", "dotenv line 1: the single-quoted value of A has no closing quote"),
            ("A='open\\'\nB=2\n", "dotenv line 1: the single-quoted value of A has no closing quote"),
            ("A=\"x\" junk\n", "dotenv line 1: unexpected text after the closing quote of A"),
            ("A=1\r\nB\r\n", "dotenv line 2: expected KEY=VALUE"),
            ("my key=1\n", "dotenv line 1: expected KEY=VALUE"),
            ("A=1\nB=2\nA=3\n", "dotenv line 3: A is already set on line 1"),
            ("export\n", "dotenv line 1: expected KEY=VALUE"),
            ("caf\u{E9}=1\n", "dotenv line 1: expected KEY=VALUE"),
            ("\(String(repeating: "k", count: 256))=1\n", "dotenv line 1: the key is 256 bytes long"),
        ])
    func malformed(input: String, message: String) {
        #expect {
            try DotEnv.parse(Array(input.utf8))
        } throws: { error in
            (error as? VaultError)?.code == .usage && (error as? VaultError)?.message.hasPrefix(message) == true
        }
    }

    @Test(
        "a line that is not an assignment is named by number, never quoted",
        arguments: [
            ("A=1\nghp_16C7e42F292c6912E7710c838347Ae178B4a\n", 2, "ghp_16C7e42F292c"),
            ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", 1, "BEGIN"),
            ("K=1\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n", 2, "MIIEvQIBADANBgkq"),
            ("K=1\nMIIEv+QIBADANBgkq/hkiG9w0BAQEF==\n", 2, "MIIEv"),
            ("hunter2 is the password\n", 1, "hunter2"),
        ])
    func unquotedLine(input: String, line: Int, secret: String) {
        #expect {
            try DotEnv.parse(Array(input.utf8))
        } throws: { error in
            let message = (error as? VaultError)?.message ?? ""
            return message.hasPrefix("dotenv line \(line): expected KEY=VALUE") && !message.contains(secret)
        }
    }

    @Test("writing quotes only what needs it, and reads back the same bytes")
    func roundTrip() throws {
        let values: [String] = [
            "", "plain", "with space", "it's", "say \"hi\"", "back\\slash", "line\nbreak", "cr\rhere",
            "tab\there", "$HOME ${X}", "# hash", "a#b", "  padded  ", "uni\u{E9}\u{1F511}", "'\"both\"'", "=",
            "ends with backslash\\", "\\n literally",
        ]
        let records = try values.enumerated().map { index, value in
            SecretRecord(
                name: try SecretName(service: "s", account: "K\(index)"), value: Array(value.utf8),
                metadata: SecretMetadata(
                    created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        }
        let encoded = try DotEnv.encode(records)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.hasPrefix("K0=\nK1=plain\nK2='with space'\nK3=\"it's\"\n"))
        let decoded = try DotEnv.parse(encoded)
        #expect(decoded.map(\.key) == records.map(\.name.account))
        #expect(decoded.map(\.value) == records.map { Array($0.value) })
    }

    @Test("names that are not keys and values that are not text cannot be written")
    func unwritable() throws {
        func record(_ name: String, _ value: [UInt8]) throws -> SecretRecord {
            SecretRecord(
                name: try SecretName(service: "s", account: name), value: value,
                metadata: SecretMetadata(
                    created: Timestamp(secondsSince1970: 0), updated: Timestamp(secondsSince1970: 0)))
        }
        for (bad, fragment) in [
            (try record("has space", [1]), "'has space' cannot be a dotenv key"),
            (try record("nul", [0x61, 0]), "the value of 'nul' is binary"),
            (try record("latin1", [0xE9]), "the value of 'latin1' is binary"),
        ] {
            #expect {
                try DotEnv.encode([try record("fine", [0x61]), bad])
            } throws: { error in
                (error as? VaultError)?.code == .usage && (error as? VaultError)?.message.contains(fragment) == true
            }
        }
    }
}
