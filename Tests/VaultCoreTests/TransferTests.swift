import Testing
import VaultCore
import VaultSecureBytes

@testable import VaultFeatures
@testable import VaultStorage

/// Import, export, environment bindings and expiry states against the in-memory store.
@Suite("Import, export, exec bindings")
struct TransferTests {
    static let start = Timestamp(secondsSince1970: 1_800_000_000)

    func vault(_ records: [(String, String)] = [], now: Timestamp = start) throws -> Vault {
        let store = MemoryStore(
            try records.map { name, value in
                SecretRecord(
                    name: try SecretName(service: "s", account: name), value: Array(value.utf8),
                    metadata: SecretMetadata(created: Self.start, updated: Self.start))
            })
        return Vault(store: store, now: { now })
    }

    func name(_ account: String) throws -> SecretName { try SecretName(service: "s", account: account) }

    @Test(
        "variable names derive from secret names",
        arguments: [
            ("ci/npm-token", "CI_NPM_TOKEN"), ("github", "GITHUB"), ("2fa", "_2FA"), ("a.b-c d", "A_B_C_D"),
            ("Mixed_Case9", "MIXED_CASE9"), ("caf\u{E9}", "CAF__"), ("_x", "_X"),
        ])
    func variableNames(account: String, variable: String) throws {
        #expect(try EnvironmentBinding.variableName(for: account) == variable)
    }

    @Test("a name without a letter or digit has no variable")
    func noVariable() {
        expectFailure(.usage) { try EnvironmentBinding.variableName(for: "///") }
        expectFailure(.usage) { try EnvironmentBinding.variableName(for: "\u{E9}") }
    }

    @Test("--env parses VAR=NAME at the first '=' and derives a bare NAME")
    func parsing() throws {
        #expect(
            try EnvironmentBinding(parsing: "TOKEN=ci/npm", service: "s")
                == .init(variable: "TOKEN", name: name("ci/npm")))
        #expect(try EnvironmentBinding(parsing: "X=a=b", service: "s") == .init(variable: "X", name: name("a=b")))
        #expect(
            try EnvironmentBinding(parsing: "ci/npm", service: "s")
                == .init(variable: "CI_NPM", name: name("ci/npm"), derived: true))
        expectFailure(.usage) { try EnvironmentBinding(parsing: "1X=a", service: "s") }
        expectFailure(.usage) { try EnvironmentBinding(parsing: "=a", service: "s") }
        expectFailure(.usage) { try EnvironmentBinding(parsing: "X-Y=a", service: "s") }
        expectFailure(.usage) { try EnvironmentBinding(parsing: "X=", service: "s") }
    }

    @Test("bindings: collisions name both secrets; duplicates count once; NUL is refused")
    func environment() throws {
        let vault = try vault([("a-b", "1"), ("a.b", "2"), ("c", "3")])
        let all = try vault.bindingsForAll(service: "s")
        #expect {
            try vault.environment(for: all)
        } throws: { error in
            let error = error as? VaultError
            return error?.code == .usage && error?.message.contains("'a-b' and 'a.b' both map to A_B") == true
        }
        let same = EnvironmentBinding(variable: "C", name: try name("c"))
        let values = try vault.environment(for: [same, same, .init(variable: "D", name: try name("a.b"))])
        #expect(values.map(\.variable) == ["C", "D"])
        #expect(values.map(\.value) == [[0x33], [0x32]])
        try vault.set(try name("nul"), value: [0x61, 0, 0x62])
        #expect {
            try vault.environment(for: [.init(variable: "N", name: try name("nul"))])
        } throws: { error in
            (error as? VaultError)?.message.contains("'nul' contains a NUL byte") == true
        }
        #expect(throws: VaultError(.notFound, "no secret named 'none' in service 's'")) {
            try vault.environment(for: [.init(variable: "N", name: try name("none"))])
        }
    }

    @Test("expiry states: expired from the expiry time on, soon within 7 days")
    func expiryStates() throws {
        let vault = try vault()
        func state(_ offset: Int64?) -> ExpiryState {
            vault.expiryState(
                of: SecretMetadata(
                    created: Self.start, updated: Self.start, expires: offset.map { Self.start.adding(seconds: $0) }))
        }
        #expect(state(nil) == .valid)
        #expect(state(-1) == .expired)
        #expect(state(0) == .expired)
        #expect(state(1) == .soon)
        #expect(state(Vault.soonInterval) == .soon)
        #expect(state(Vault.soonInterval + 1) == .valid)
    }

    @Test("import: conflicts write nothing; --overwrite replaces; equal values stay untouched")
    func importConflicts() throws {
        let vault = try vault([("same", "1"), ("differs", "old")])
        let items = [
            ImportItem(name: try name("same"), value: Array("1".utf8)),
            ImportItem(name: try name("differs"), value: Array("new".utf8)),
            ImportItem(name: try name("added"), value: Array("x".utf8)),
        ]
        expectFailure(.conflict) { try vault.importSecrets(items, overwrite: false) }
        #expect(try vault.list(service: "s").map(\.name.account) == ["differs", "same"])
        let summary = try vault.importSecrets(items, overwrite: true)
        #expect(summary.added == [try name("added")])
        #expect(summary.replaced == [try name("differs")])
        #expect(summary.unchanged == [try name("same")])
        #expect(try vault.get(try name("differs")).value == Array("new".utf8))
        #expect(try vault.get(try name("same")).metadata.updated == Self.start)
    }

    @Test("JSON: both shapes, byte-exact strings, base64, expiry; malformed input names its line or entry")
    func json() throws {
        let array = """
            [
              {"name": "text", "value": "caf\\u00e9 \\ud83d\\udd11 \\"q\\" \\u0000", "expires": null},
              {"name": "bin", "value_base64": "AP8=", "expires": "2030-01-01T00:00:00Z"},
              {"name": "plain", "value": ""}
            ]
            """
        let items = try TransferFormat.json.parse(Array(array.utf8), service: "s")
        #expect(items.map(\.name.account) == ["text", "bin", "plain"])
        #expect(items[0].value == Array("caf\u{E9} \u{1F511} \"q\" \0".utf8))
        #expect(items[0].setsExpiry && items[0].expires == nil)
        #expect(items[1].value == [0, 0xFF])
        #expect(items[1].expires == Timestamp(rfc3339: "2030-01-01T00:00:00Z"))
        #expect(!items[2].setsExpiry)
        let object = try TransferFormat.json.parse(Array(#"{"A": "1", "b/c": "2"}"#.utf8), service: "s")
        #expect(object.map(\.name.account) == ["A", "b/c"])

        let failures: [(String, String)] = [
            ("[\n{\"name\": \"a\",\n\"value\": 1}]", "JSON entry 1: 'value' is given twice or has the wrong type"),
            ("[\n{\"name\": \"a\", \"value\": \"1\"},\n]", "JSON line 3: unexpected character"),
            (#"[{"name": "a", "vaule": "1"}]"#, "JSON entry 1: an unknown key (keys are"),
            (#"[{"name": "a", "value": "1", "value_base64": "MQ=="}]"#, #"has both "value" and "value_base64""#),
            (#"[{"name": "a", "value_base64": "not base64"}]"#, "not base64"),
            (#"[{"name": "a", "value": "1", "expires": "soon"}]"#, "not an RFC 3339 time"),
            (#"[{"name": "a", "value": "1"}, {"name": "a", "value": "2"}]"#, "'a' is given twice"),
            (#"[{"value": "1"}]"#, "no \"name\""),
            (#"{"a": 1}"#, "must be a string"),
            (#""text""#, "must be an array"),
            ("[\"\\ud800\"]", "lone surrogate"),
            ("[] []", "unexpected text after"),
        ]
        for (input, fragment) in failures {
            #expect {
                try TransferFormat.json.parse(Array(input.utf8), service: "s")
            } throws: { error in
                (error as? VaultError)?.message.contains(fragment) == true
            }
        }
    }

    @Test("JSON export writes text as value and anything else as value_base64")
    func jsonExport() throws {
        let vault = try vault([("a", "x\"y\n")])
        try vault.set(try name("b"), value: [0, 1], expires: Timestamp(rfc3339: "2030-01-01T00:00:00Z"))
        let text = String(decoding: try TransferFormat.json.encode(try vault.records(service: "s")), as: UTF8.self)
        #expect(
            text == """
                [
                  {"name":"a","value":"x\\"y\\n","expires":null},
                  {"name":"b","value_base64":"AAE=","expires":"2030-01-01T00:00:00Z"}
                ]

                """)
        let back = try TransferFormat.json.parse(Array(text.utf8), service: "s")
        #expect(back.map(\.value) == [Array("x\"y\n".utf8), [0, 1]])
    }
}
