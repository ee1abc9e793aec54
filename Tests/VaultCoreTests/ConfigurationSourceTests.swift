import Testing

@testable import VaultCore

/// vault reads its environment once, in ``Configuration``, by the names one declaration holds
/// (`VaultVariables.swift`): `vault help`, the man page test and `vault exec`'s removal of key
/// material list the same variables Configuration reads. Read from the package's sources, in
/// process; files are matched by name, wherever their folder is.
@Suite("Configuration is the one reader of the environment")
struct ConfigurationSourceTests {
    /// The declaration: the only file that spells a `VAULT_*` or `BAO_*` name.
    static let declaration = "VaultVariables.swift"

    /// Other files that spell a whole name or prefix, each with why it reads no variable by it.
    static let namingAllowed: [(file: String, why: String)] = [
        ("ProcessEnvironment.swift", "the tool checks the bytes of every VAULT_ entry before reading any"),
        ("OpenBaoLogin.swift", "a remedy names BAO_JWT_ROLE; the backend reads no variable"),
    ]

    /// Files that look a name up in an environment without being Configuration's, each with why.
    static let lookupAllowed: [(file: String, why: String)] = [
        ("ProxyVariables.swift", "Configuration's reading of libcurl's proxy variables, by libcurl's rules"),
        ("GitCommandRunner.swift", "looks for git on the PATH of the environment it gives git"),
        ("PrivateSessionBus.swift", "looks for dbus-daemon on the PATH of the environment it gives it"),
        ("ExecCommand.swift", "GITHUB_ACTIONS, to mask values in the way the runner reads"),
    ]

    /// Whether a file is one of Configuration's.
    static func isConfiguration(_ file: String) -> Bool {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return name == "Configuration.swift" || name.hasPrefix("Configuration+")
    }

    static func name(of file: String) -> String { file.split(separator: "/").last.map(String.init) ?? file }

    /// A literal that is a whole variable name or prefix: `VAULT_FILE`, `BAO_ADDR`, `VAULT_TO_`.
    static func isVariableName(_ text: String) -> Bool {
        text.wholeMatch(of: /(VAULT|BAO)_[A-Z0-9_]*/) != nil
    }

    /// The lines of `source` whose code looks a name up in an environment: a subscript of
    /// something called `environment`, `Configuration.value(...)`, or `getenv`.
    static func lookupLines(_ source: String) -> [Int] {
        SwiftLiterals.code(in: source).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter {
                $0.element.contains(/(^|\W)environment\s*\[|Configuration\.value\s*\(|(^|\W)(secure_)?getenv\s*\(/)
            }
            .map { $0.offset + 1 }
    }

    /// Records each finding of `find` in the sources under Sources/ (but those `skip` takes) as
    /// `what` it does and the `fix`, unless its file is `allowed`; and each allowed file that no
    /// longer does it.
    static func check(
        allowed: [(file: String, why: String)], skip: (String) -> Bool = { _ in false },
        find: (String, String) -> [(line: Int, text: String)], what: String, fix: String
    ) throws {
        var seen = Set<String>()
        for (file, source) in try SwiftLiterals.sources(under: "Sources", atLeast: 100) where !skip(file) {
            let found = find(file, source)
            if allowed.contains(where: { $0.file == name(of: file) }) {
                if !found.isEmpty { seen.insert(name(of: file)) }
                continue
            }
            for finding in found {
                let text = finding.text.isEmpty ? "" : " (\(finding.text))"
                Issue.record("Sources/\(file):\(finding.line) \(what)\(text): \(fix)")
            }
        }
        for entry in allowed where !seen.contains(entry.file) {
            Issue.record("\(entry.file) no longer \(what), drop it from the list")
        }
    }

    @Test("only VaultVariables.swift spells a VAULT_ or BAO_ name; Configuration reads them by its constants")
    func namesDeclaredOnce() throws {
        var declared = Set<String>()
        try Self.check(
            allowed: Self.namingAllowed,
            find: { (file, source) in
                let names = SwiftLiterals.strings(in: source).filter { Self.isVariableName($0.text) }
                guard Self.name(of: file) != Self.declaration else {
                    declared.formUnion(names.map(\.text))
                    return []
                }
                return names.map { ($0.line, $0.text) }
            },
            what: "spells a variable name", fix: "read it in Configuration, by its VaultVariable")
        // Every name the declaration spells is in the documented list (the prefixes excepted).
        let documented = Set(VaultVariables.all.map(\.name))
        let prefixes: Set = [VaultVariables.prefix, VaultVariables.destinationPrefix]
        for name in declared.subtracting(prefixes) where !documented.contains(name) {
            Issue.record("\(name) is declared in \(Self.declaration) but not in VaultVariables.all")
        }
        #expect(declared.contains("VAULT_FILE") && declared.contains("VAULT_ADDR"), "the declaration was not found")
    }

    @Test("no file but Configuration's looks a name up in the environment")
    func oneReader() throws {
        try Self.check(
            allowed: Self.lookupAllowed, skip: Self.isConfiguration,
            find: { (_, source) in Self.lookupLines(source).map { ($0, "") } },
            what: "reads the environment", fix: "read it once in Configuration")
    }

    @Test("the finders: whole names in literals, look-ups in code, not in comments or longer names")
    func finders() {
        #expect(Self.isVariableName("VAULT_FILE") && Self.isVariableName("BAO_ADDR") && Self.isVariableName("VAULT_"))
        #expect(!Self.isVariableName("VAULT_TIMEOUT is '") && !Self.isVariableName("MY_VAULT_FILE"))
        let source = #"""
            // environment["VAULT_FILE"] in a comment
            let a = "environment[x]"
            let b = environment["HOME"]
            let c = Configuration.value("PATH", in: e)
            let d = self.environment [name]
            let e = getenv("HOME"); let f = mygetenv(x); let g = environmentNames[0]; h = childEnvironment[k]
            """#
        #expect(Self.lookupLines(source) == [3, 4, 5, 6])
    }
}
