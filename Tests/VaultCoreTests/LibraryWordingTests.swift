import Foundation
import Testing
import VaultTestSupport

/// VaultCore is a library: no string it holds names a `vault` command or a command-line flag.
/// Its errors carry remedies as data (`VaultError.Remedy`) that the tool words
/// (`Sources/vault/ErrorWording.swift`). Read from the package's sources, in process.
@Suite("Library wording")
struct LibraryWordingTests {
    /// Literals allowed to name a command, each with why.
    static let allowed: [(file: String, text: String)] = []
    /// Files whose literals are another program's command line, not words for the user, each
    /// with why; every other file's literals are checked.
    static let argumentFiles: [(file: String, why: String)] = [
        ("Features/GitFiles/GitCommandRunner.swift", "git's own options, for vault git setup")
    ]

    /// Whether a literal names a `vault` command ('vault get') or a flag (--file).
    static func namesCommand(_ text: String) -> Bool {
        text.contains(/'vault [a-z]/) || text.contains(/(^|[\s'"(`])--[a-z]/)
    }

    @Test("no VaultCore string literal names a 'vault ...' command or a --flag")
    func noCommands() throws {
        var allowedSeen = Set<String>()
        for (file, source) in try SwiftLiterals.sources(under: "Sources/VaultCore", atLeast: 50)
        where !Self.argumentFiles.contains(where: { $0.file == file }) {
            for literal in SwiftLiterals.strings(in: source) where Self.namesCommand(literal.text) {
                if Self.allowed.contains(where: { $0.file == file && $0.text == literal.text }) {
                    allowedSeen.insert(file + literal.text)
                    continue
                }
                Issue.record("Sources/VaultCore/\(file):\(literal.line) names a command: \(literal.text)")
            }
        }
        for entry in Self.allowed where !allowedSeen.contains(entry.file + entry.text) {
            Issue.record("the allowed literal is gone, drop it from the list: \(entry.file): \(entry.text)")
        }
    }

    @Test("the literal scanner: strings, multi-line and raw strings, interpolations; not comments")
    func scanner() {
        let source = #"""
            // 'vault get' in a comment
            /* 'vault set' in a block /* nested */ comment */
            let a = "run 'vault trust \(name.account)' now" // "not this"
            let b = "a \"quoted\" \(f("inner 'vault x'")) end"
            let c = """
                line 'vault rm'
                """
            let d = #"raw "vault" \(x) --flag"#
            let e = "/"; let f = "//"
            """#
        let texts = SwiftLiterals.strings(in: source).map(\.text)
        #expect(
            texts == [
                "run 'vault trust ", "' now", "a \\\"quoted\\\" ", "inner 'vault x'", " end",
                "\n    line 'vault rm'\n    ", "raw \"vault\" \\(x) --flag", "/", "//",
            ], "\(texts)")
        #expect(SwiftLiterals.strings(in: source).map(\.line) == [3, 3, 4, 4, 4, 5, 8, 9, 9])
        #expect(texts.filter(Self.namesCommand).count == 4)
        #expect(
            !Self.namesCommand("the vault file") && !Self.namesCommand("a--b") && !Self.namesCommand("vault doctor"))
    }
}

/// The contents of a Swift source's string literals, found by a small scanner: comments
/// (nested block comments too) are skipped, `"`, `"""` and raw `#"` strings are read with their
/// escapes, and the code inside an interpolation `\(...)` is scanned for literals of its own.
/// Each piece of a literal between interpolations is one string.
enum SwiftLiterals {
    struct Literal: Equatable {
        var text: String
        var line: Int
    }

    /// The Swift files under `folder` of the package (paths relative to it, sorted) with their
    /// text; a test fails unless there are more than `atLeast`.
    static func sources(under folder: String, atLeast: Int) throws -> [(file: String, source: String)] {
        let root = try #require(packageRoot()).appendingPathComponent(folder)
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count > atLeast, "too few sources found under \(root.path)")
        return try files.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    static func strings(in source: String) -> [Literal] {
        var scanner = Scanner(Array(source.unicodeScalars))
        scanner.code(untilParenthesisCloses: false)
        return scanner.found
    }

    /// The source's code without its comments and literals (a literal reads as `""`), line for
    /// line: what a call site is made of.
    static func code(in source: String) -> String {
        var scanner = Scanner(Array(source.unicodeScalars))
        scanner.code(untilParenthesisCloses: false)
        return String(String.UnicodeScalarView(scanner.codeText))
    }

    private struct Scanner {
        let text: [Unicode.Scalar]
        var index = 0
        var line = 1
        var found: [Literal] = []
        /// The code outside comments and literals, with every line break of the source.
        var codeText: [Unicode.Scalar] = []

        init(_ text: [Unicode.Scalar]) { self.text = text }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < text.count ? text[index + offset] : nil
        }

        func starts(with string: String) -> Bool {
            string.unicodeScalars.enumerated().allSatisfy { peek($0.offset) == $0.element }
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < text.count {
                if text[index] == "\n" {
                    line += 1
                    codeText.append("\n")
                }
                index += 1
            }
        }

        /// Scans code; inside an interpolation, up to its closing parenthesis.
        mutating func code(untilParenthesisCloses: Bool) {
            var depth = 0
            while let scalar = peek() {
                if scalar == "/" && peek(1) == "/" {
                    while let next = peek(), next != "\n" { advance() }
                } else if scalar == "/" && peek(1) == "*" {
                    blockComment()
                } else if scalar == "#" || scalar == "\"" {
                    var hashes = 0
                    while peek(hashes) == "#" { hashes += 1 }
                    if peek(hashes) == "\"" {
                        codeText += ["\"", "\""]
                        advance(hashes)
                        string(hashes: hashes)
                    } else {
                        codeText += Array(repeating: "#", count: max(hashes, 1))
                        advance(max(hashes, 1))
                    }
                } else {
                    if scalar == "(" { depth += 1 }
                    if scalar == ")" {
                        if untilParenthesisCloses && depth == 0 {
                            advance()
                            return
                        }
                        depth -= 1
                    }
                    if scalar != "\n" { codeText.append(scalar) }
                    advance()
                }
            }
        }

        mutating func blockComment() {
            var depth = 0
            while peek() != nil {
                if starts(with: "/*") {
                    depth += 1
                    advance(2)
                } else if starts(with: "*/") {
                    depth -= 1
                    advance(2)
                    if depth == 0 { return }
                } else {
                    advance()
                }
            }
        }

        /// Reads a literal whose opening quote is next, with `hashes` raw delimiters before it.
        mutating func string(hashes: Int) {
            let multiLine = starts(with: "\"\"\"")
            let quote = multiLine ? "\"\"\"" : "\""
            let close = quote + String(repeating: "#", count: hashes)
            let escape = "\\" + String(repeating: "#", count: hashes)
            advance(quote.count)
            var piece = ""
            var pieceLine = line
            func keep(_ piece: String, _ line: Int, into found: inout [Literal]) {
                if !piece.isEmpty { found.append(Literal(text: piece, line: line)) }
            }
            while let scalar = peek() {
                if starts(with: close) || (!multiLine && scalar == "\n") {
                    advance(close.count)
                    break
                }
                if starts(with: escape + "(") {
                    keep(piece, pieceLine, into: &found)
                    advance(escape.count + 1)
                    code(untilParenthesisCloses: true)
                    piece = ""
                    pieceLine = line
                } else if starts(with: escape) {
                    piece += escape
                    advance(escape.count)
                    if let next = peek() {
                        piece.unicodeScalars.append(next)
                        advance()
                    }
                } else {
                    piece.unicodeScalars.append(scalar)
                    advance()
                }
            }
            keep(piece, pieceLine, into: &found)
        }
    }
}
