import Testing
import VaultCore
import VaultSecureBytes

@testable import VaultFeatures
@testable import VaultStorage

/// Parsing and printing `vault://SERVICE/NAME`, and templates, against an in-memory store.
@Suite("Secret references")
struct SecretReferenceTests {
    @Test("SERVICE is the first segment, percent-decoded; NAME is the rest")
    func parsing() throws {
        let plain = try SecretReference(parsing: "vault://github.com/ci/npm-token")
        #expect(plain.name == (try SecretName(service: "github.com", account: "ci/npm-token")))
        let encoded = try SecretReference(parsing: "vault://team%2Fops%25/a%2Fb")
        #expect(encoded.name == (try SecretName(service: "team/ops%", account: "a%2Fb")))
        #expect(encoded.description == "vault://team%2Fops%25/a%2Fb")
        for bad in [
            "vault://", "vault://svc", "vault://svc/", "vault:///name", "vault://a%2/b", "vault://%FF/b", "http://a/b",
        ] {
            expectFailure(.usage, "\(bad)") { try SecretReference(parsing: bad) }
        }
    }

    @Test("templates: placeholders found with their lines; other braces kept")
    func scanning() throws {
        let store = MemoryStore()
        let vault = Vault(store: store)
        try vault.set(try SecretName(service: "s", account: "a"), value: Array("A".utf8))
        let template = Array("{{x}} {{ vault://s/a }}\n{{vault://s/a}}{{ vault://s/a}}".utf8)
        #expect(try SecretTemplate.render(template, vault: vault) == Array("{{x}} A\nAA".utf8))
        #expect(throws: VaultError(.notFound, "template line 2: vault://s/b: no secret named 'b' in service 's'")) {
            try SecretTemplate.render(Array("\n{{ vault://s/b }}".utf8), vault: vault)
        }
    }
}
