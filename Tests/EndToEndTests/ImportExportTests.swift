import Foundation
import Testing
import VaultTestSupport

/// `vault import` and `vault export` through the built binary.
@Suite("import and export, end to end")
struct ImportExportTests {
    static let dotenv = """
        # deploy settings\r
        \r
        export API_TOKEN=ghp_abc123 # the GitHub token\r
        DB_URL="postgres://u:p@h/db?sslmode=require"\r
        MULTI="line one\\nline \\"two\\"\\\\"\r
        LITERAL='$HOME \\n # kept'\r
        EMPTY=\r
        EQUALS=a=b=c\r
        HASH=a#b\r
        SPANNING="first\r
        second"\r
        ci/npm-token = spaced  \r

        """

    @Test("dotenv import: quotes, escapes, comments, export, CRLF, empty values, = in values")
    func importDotenv() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        let result = try vault.run(["import", "--format", "dotenv"], stdin: Array(Self.dotenv.utf8))
        result.expectSuccess()
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "vault: imported 9 of 9 secrets into '\(vault.service)': 9 added, 0 replaced, 0 unchanged\n")
        let expected: [(String, String)] = [
            ("API_TOKEN", "ghp_abc123"), ("DB_URL", "postgres://u:p@h/db?sslmode=require"),
            ("MULTI", "line one\nline \"two\"\\"), ("LITERAL", "$HOME \\n # kept"), ("EMPTY", ""),
            ("EQUALS", "a=b=c"), ("HASH", "a#b"), ("SPANNING", "first\nsecond"), ("ci/npm-token", "spaced"),
        ]
        for (name, value) in expected {
            #expect(try vault.run(["get", name]).stdoutText == value, "\(name)")
        }
        #expect(try vault.run(["ls"]).stdoutText.split(separator: "\n").count == 9)
    }

    @Test(
        "a malformed line aborts with its number and writes nothing",
        arguments: [
            ("A=1\nB=2\nthis is not an assignment\n", "dotenv line 3: expected KEY=VALUE"),
            ("A=1\r\nB=\"unterminated\r\nC=3\r\n", "dotenv line 2: the double-quoted value of B has no closing quote"),
            ("A='x' y\n", "dotenv line 1: unexpected text after the closing quote of A"),
            ("A=1\n\n\nA=2\n", "dotenv line 4: A is already set on line 1"),
            ("ok=1\nhas space=2\n", "dotenv line 2: expected KEY=VALUE"),
        ])
    func malformed(input: String, message: String) throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run(["import", "--format", "dotenv"], stdin: Array(input.utf8))
            .expectFailure(2, message)
        #expect(
            try vault.run(["import", "--format", "dotenv"], stdin: Array(input.utf8)).stderr.contains(
                "nothing was imported"))
        #expect(try vault.run(["ls"]).stdout.isEmpty)
    }

    @Test("conflicts exit 7 listing the names and write nothing; --overwrite replaces; equal values are kept")
    func conflicts() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("A", "old-a")
        try vault.set("B", "old-b")
        try vault.set("SAME", "same", ["--expires-in", "30d"])
        let input = Array("A=new-a\nB=new-b\nSAME=same\nNEW=fresh\n".utf8)
        try vault.run(["import", "--format", "dotenv"], stdin: input).expectFailure(
            7,
            "2 secrets already exist with a different value: 'A', 'B'; nothing was imported (use --overwrite to replace)"
        )
        try vault.run(["get", "NEW"]).expectFailure(1)
        #expect(try vault.run(["get", "A"]).stdoutText == "old-a")
        let replaced = try vault.run(["import", "--format", "dotenv", "--overwrite"], stdin: input)
        replaced.expectSuccess()
        #expect(
            replaced.stderr.contains("3 of 4 secrets") && replaced.stderr.contains("1 added, 2 replaced, 1 unchanged"))
        #expect(try vault.run(["get", "A"]).stdoutText == "new-a")
        #expect(try vault.run(["get", "NEW"]).stdoutText == "fresh")
        // The unchanged secret keeps its expiry.
        #expect(try vault.run(["ls", "--long"]).stdoutText.contains("SAME\tvalid\t"))
        #expect(!(try vault.run(["ls", "--long"]).stdoutText.contains("SAME\tvalid\t-")))
    }

    @Test("export → import is lossless: dotenv for text, JSON for everything")
    func roundTrips() throws {
        let source = try VaultRunner.scripted()
        defer { source.cleanUp() }
        let texts = [
            "plain", "", "with space", "it's", "say \"hi\"", "back\\slash\\", "line\nbreak\n", "cr\r\nlf", "tab\t",
            "$HOME ${X} `cmd`", "# hash", "  padded  ", "uni\u{E9}\u{1F511}", "=", "'\"'",
        ]
        for (index, text) in texts.enumerated() { try source.set("t\(index)", text) }
        let dotenv = try source.run(["export", "--format", "dotenv"])
        dotenv.expectSuccess()
        #expect(dotenv.stderr.isEmpty)

        var target = try VaultRunner.scripted()
        defer { target.cleanUp() }
        target.environment["VAULT_FILE"] = target.path("target.age")
        try target.run(["import", "--format", "dotenv"], stdin: dotenv.stdout).expectSuccess()
        for (index, text) in texts.enumerated() {
            #expect(try target.run(["get", "t\(index)"]).stdout == Array(text.utf8), "t\(index)")
        }
        #expect(try target.run(["export", "--format", "dotenv"]).stdout == dotenv.stdout)

        // Binary values and expiry times survive JSON.
        try source.set("binary", [0, 0xFF, 0xFE, 0x0A, 0])
        try source.set("expiring", "x", ["--expires-at", "2031-05-06T07:08:09Z"])
        let json = try source.run(["export", "--format", "json"])
        json.expectSuccess()
        #expect(json.stdoutText.contains("{\"name\":\"binary\",\"value_base64\":\"AP/+CgA=\",\"expires\":null}"))
        #expect(
            json.stdoutText.contains("{\"name\":\"expiring\",\"value\":\"x\",\"expires\":\"2031-05-06T07:08:09Z\"}"))
        let other = try VaultRunner.scripted()
        defer { other.cleanUp() }
        try other.run(["import", "--format", "json"], stdin: json.stdout).expectSuccess()
        #expect(try other.run(["get", "binary"]).stdout == [0, 0xFF, 0xFE, 0x0A, 0])
        #expect(try other.run(["export", "--format", "json"]).stdout == json.stdout)
    }

    @Test("dotenv export refuses binary values and non-key names, naming the secret, and writes nothing")
    func unrepresentable() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("fine", "1")
        try vault.set("binary", [0x61, 0x00])
        try vault.run(["export", "--format", "dotenv"]).expectFailure(
            2, "the value of 'binary' is binary (a NUL byte or invalid UTF-8); use --format json")
        try vault.run(["rm", "binary"]).expectSuccess()
        try vault.set("has space", "x")
        try vault.run(["export", "--format", "dotenv"]).expectFailure(
            2, "'has space' cannot be a dotenv key (only letters, digits and _ . - / are); use --format json")
        #expect(try vault.run(["export", "--format", "json"]).stdoutText.contains("\"name\":\"has space\""))
    }

    @Test("export covers the current service only and notes dropped expiry times")
    func scope() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("mine", "1", ["--expires-in", "2w"])
        try vault.run(["--service", "\(vault.service)-other", "set", "theirs"], stdin: [0x32]).expectSuccess()
        let dotenv = try vault.run(["export", "--format", "dotenv"])
        #expect(dotenv.stdoutText == "mine=1\n")
        #expect(
            dotenv.stderr
                == "vault: note: dotenv keeps no expiry times; 1 of these secrets has one (--format json keeps them)\n")
        #expect(
            try vault.run(["--service", "\(vault.service)-other", "export", "--format", "dotenv"]).stdoutText
                == "theirs=2\n")
        #expect(
            try vault.run(["--service", "\(vault.service)-empty", "export", "--format", "json"]).stdoutText == "[]\n")
    }

    @Test("JSON import: the object form, and errors naming the entry or line")
    func jsonImport() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run(["import", "--format", "json"], stdin: Array(#"{"A": "1", "b/c": "line\n"}"#.utf8))
            .expectSuccess()
        #expect(try vault.run(["get", "b/c"]).stdoutText == "line\n")
        try vault.run(
            ["import", "--format", "json"],
            stdin: Array("[\n{\"name\": \"x\", \"value\": \"1\"},\n{\"name\": 5}\n]".utf8)
        )
        .expectFailure(2, "JSON entry 2")
        try vault.run(["import", "--format", "json"], stdin: Array("[\n{\"name\": \"x\",\n \"value\": \"1\"\n".utf8))
            .expectFailure(2, "JSON line 4")
        try vault.run(["get", "x"]).expectFailure(1)
    }

    @Test("--format is required and checked")
    func formatOption() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run(["import"], stdin: []).expectFailure(2, "give --format dotenv or --format json")
        try vault.run(["export"]).expectFailure(2, "give --format dotenv or --format json")
        try vault.run(["export", "--format", "yaml"]).expectFailure(2, "--format is 'yaml'; use dotenv or json")
        try vault.run(["import", "--format", "dotenv", "extra"]).expectFailure(2, "takes 0 operand")
    }
}
