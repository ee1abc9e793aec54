import Foundation
import Testing
import VaultTestSupport

/// VaultCore is a library: no string it holds names a `vault` command or a command-line flag, or
/// tells the user what to do. Its errors state facts and carry remedies as data
/// (`VaultError.Remedy`) that the tool words (`Sources/vault/ErrorWording.swift`). Read from the
/// package's sources, in process.
@Suite("Library wording")
struct LibraryWordingTests {
    /// Literals allowed to name a command, each with why.
    static let allowed: [(file: String, text: String)] = []
    /// Files whose literals are another program's command line, not words for the user, each
    /// with why; every other file's literals are checked.
    static let argumentFiles: [(file: String, why: String)] = [
        ("VaultFeatures/GitFiles/GitCommandRunner.swift", "git's own options, for vault git setup"),
        ("VaultAge/Plugin/PluginCommandLine.swift", "the age plugin protocol's one argument, --age-plugin="),
        (
            "VaultCore/SecretServiceHost/ProviderCommandLine.swift",
            "vault's provider's and dbus-daemon's arguments, and the activation file's mark"
        ),
    ]

    /// Whether a literal names a `vault` command ('vault get') or a flag (--file).
    static func namesCommand(_ text: String) -> Bool {
        text.contains(/'vault [a-z]/) || text.contains(/(^|[\s'"(`])--[a-z]/)
    }

    /// Verbs that, right after a `;`, a `:` or an opening parenthesis, start advice to the user
    /// ("...; run it in ...", ": set BAO_TOKEN", "(install libcurl4)"): the way library messages
    /// used to end before their remedies became data.
    static let adviceVerbs: Set<Substring> = [
        "add", "allow", "answer", "approve", "ask", "check", "choose", "create", "delete", "disable", "edit", "enable",
        "export", "fix", "get", "give", "install", "log", "name", "pass", "raise", "remove", "rename", "restart",
        "retry", "run", "see", "set", "start", "store", "try", "turn", "type", "unlock", "unset", "use",
    ]

    /// Whether a text gives the user advice: a clause after `; `, `: ` or `(` starts with one of
    /// the verbs.
    static func givesAdvice(_ text: String) -> Bool {
        text.ranges(of: #/[;:] |\(/#).contains {
            adviceVerbs.contains(text[$0.upperBound...].prefix(while: \.isLetter))
        }
    }

    /// The literals of one source that give advice, read also across a join (`"...; " + "run
    /// ..."`): a literal joined to the one before it by `+` is checked after that one's last two
    /// characters.
    static func advice(in literals: [SwiftLiterals.Literal]) -> [SwiftLiterals.Literal] {
        zip([nil] + literals.map(Optional.some), literals).filter { previous, literal in
            let before = literal.joinsPrevious ? String(previous?.text.suffix(2) ?? "") : ""
            return givesAdvice(before + literal.text)
        }.map(\.1)
    }

    @Test("no library string literal (VaultCore, VaultAge) tells the user what to do")
    func noAdvice() throws {
        let literals = try Self.literals()
        for file in Set(literals.map(\.file)).sorted() {
            for literal in Self.advice(in: literals.filter { $0.file == file }.map(\.literal)) {
                Issue.record(
                    "Sources/\(file):\(literal.line) gives advice (make it a VaultError.Remedy or AgeError.Remedy): \(literal.text)"
                )
            }
        }
    }

    /// The libraries, and how many sources each has at least (fewer: the sources were not found).
    static let libraries: [(name: String, atLeast: Int)] = [
        ("VaultStorage", 10), ("VaultSystem", 20), ("VaultAgeFile", 10), ("VaultOpenBao", 10),
        ("VaultSecretService", 10), ("VaultFeatures", 40), ("VaultCore", 15), ("VaultAge", 20),
    ]

    /// Every string literal of the libraries' sources, with its file (under Sources/), but for the
    /// argument files.
    static func literals() throws -> [(file: String, literal: SwiftLiterals.Literal)] {
        var found: [(file: String, literal: SwiftLiterals.Literal)] = []
        for library in libraries {
            for (file, source) in try SwiftLiterals.sources(under: "Sources/\(library.name)", atLeast: library.atLeast)
            where !argumentFiles.contains(where: { $0.file == "\(library.name)/\(file)" }) {
                found += SwiftLiterals.strings(in: source).map { ("\(library.name)/\(file)", $0) }
            }
        }
        return found
    }

    @Test("no library string literal (VaultCore, VaultAge) names a 'vault ...' command or a --flag")
    func noCommands() throws {
        var allowedSeen = Set<String>()
        for (file, literal) in try Self.literals() where Self.namesCommand(literal.text) {
            if Self.allowed.contains(where: { $0.file == file && $0.text == literal.text }) {
                allowedSeen.insert(file + literal.text)
                continue
            }
            Issue.record("Sources/\(file):\(literal.line) names a command: \(literal.text)")
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

    @Test("the advice rule: a clause that starts with an imperative, not a fact that uses the verb")
    func adviceRule() {
        // Caught: what the library said before its remedies became data.
        for text in [
            "the keyring is locked; unlock it and retry", "lost the D-Bus session bus while reading 'x'; retry",
            "no OpenBao token: set BAO_TOKEN", "vault never starts one: run it in your desktop session",
            "the JWT has expired; get a fresh one", "(mode 644); run: chmod 600 ", "cannot load it (install libcurl4)",
        ] {
            #expect(Self.givesAdvice(text), "\(text)")
        }
        // Across a join of two literals, in a source read by the scanner.
        let source = #"""
            let e = "the folder \(path) is open to others (mode 777); "
                + "run: chmod 700 \(path)"
            let f = "a fact; " + "then another"
            let g = "ends so: "
            let h = "set apart, not joined"
            """#
        #expect(Self.advice(in: SwiftLiterals.strings(in: source)).map(\.line) == [2])
        // Not caught: facts, a verb inside a clause or past, a value's description, a word that
        // starts with a verb.
        for text in [
            "'a' is already set on line 3", "the vault file is not created yet; the first write creates it",
            "; unlocked with VAULT_IDENTITY", "session (default: this login) or user", "the runner: settings",
            "1 allows plain http", "https://b:8200: the mount",
            "no role given, and auth/jwt/config names no default_role",
            "cannot load libcurl.so.4 (Debian package libcurl4)", "(another program changed the keyring)",
            "KeePassXC may ask to approve each program that reads an entry (unless the confirmation is off",
        ] {
            #expect(!Self.givesAdvice(text), "\(text)")
        }
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
        /// Whether only `+` and white space stand between this literal and the one before it
        /// (a sentence split over lines); true for its first piece only.
        var joinsPrevious = false
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
        /// Where the last literal ended, to tell a `+` join.
        var lastEnd: Int?

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
                        let gap = lastEnd.map { text[$0..<index] } ?? []
                        let joined = gap.contains("+") && gap.allSatisfy { $0 == "+" || $0.properties.isWhitespace }
                        advance(hashes)
                        string(hashes: hashes, joined: joined)
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
        mutating func string(hashes: Int, joined: Bool) {
            let multiLine = starts(with: "\"\"\"")
            let quote = multiLine ? "\"\"\"" : "\""
            let close = quote + String(repeating: "#", count: hashes)
            let escape = "\\" + String(repeating: "#", count: hashes)
            advance(quote.count)
            var piece = ""
            var pieceLine = line
            var first = true
            func keep(_ piece: String, _ line: Int, into found: inout [Literal]) {
                if !piece.isEmpty { found.append(Literal(text: piece, line: line, joinsPrevious: first && joined)) }
                first = false
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
            lastEnd = index
        }
    }
}
