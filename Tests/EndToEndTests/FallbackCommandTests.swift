import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// Lazy migration with `VAULT_FALLBACK`, through the built binary.
@Suite("Fallback (VAULT_FALLBACK), end to end", .kwalletSessionFlakes)
struct FallbackCommandTests {
    enum Pair: String, Sendable, CaseIterable {
        case files = "file, falling back to another file"
        case keyringOverFile = "secret-service, falling back to a file"
        case fileOverKeyring = "file, falling back to secret-service"
    }

    @Test("get moves a secret from the fallback; set and rm reach both; ls is the union", arguments: Pair.allCases)
    func lazyMigration(pair: Pair) throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        let service = uniqueKeyringService("fallback")
        vault.environment["VAULT_SERVICE"] = service
        if pair != .files { try SessionKeyring.require(&vault) }
        defer { if pair != .files { SessionKeyring.clear(service, vault) } }

        // `old` is the store secrets come from, `current` the one VAULT_FALLBACK is used with.
        let oldFile = vault.path("old.age")
        let old: [String: String]
        let current: [String: String]
        switch pair {
        case .files:
            old = ["VAULT_FILE": oldFile]
            current = ["VAULT_FALLBACK": "file:\(oldFile)"]
        case .keyringOverFile:
            old = ["VAULT_FILE": oldFile]
            current = ["VAULT_BACKEND": "secret-service", "VAULT_FALLBACK": "file:\(oldFile)"]
        case .fileOverKeyring:
            old = ["VAULT_BACKEND": "secret-service"]
            current = ["VAULT_FALLBACK": "secret-service"]
        }
        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        for (name, value) in [("moved", large), ("replaced", [1]), ("removed", [2]), ("listed", [3])] {
            try vault.run(["set", name], stdin: value, env: old).expectSuccess()
        }
        try vault.run(["set", "new"], stdin: [4], env: current).expectSuccess()
        #expect(try vault.run(["ls"], env: current).stdoutText == "listed\nmoved\nnew\nremoved\nreplaced\n")

        let got = try vault.run(["get", "moved"], env: current)
        got.expectSuccess()
        #expect(got.stdout == large)
        try vault.run(["get", "moved"], env: old).expectFailure(1)
        #expect(try vault.run(["get", "moved"], env: current, unset: ["VAULT_FALLBACK"]).stdout == large)

        try vault.run(["set", "replaced"], stdin: [9], env: current).expectSuccess()
        try vault.run(["get", "replaced"], env: old).expectFailure(1)
        #expect(try vault.run(["get", "replaced"], env: current).stdout == [9])

        try vault.run(["rm", "removed"], env: current).expectSuccess()
        try vault.run(["get", "removed"], env: old).expectFailure(1)
        try vault.run(["rm", "removed"], env: current).expectFailure(1)
        try vault.run(["get", "missing"], env: current).expectFailure(1)

        #expect(try vault.run(["ls"], env: current).stdoutText == "listed\nmoved\nnew\nreplaced\n")
        #expect(try vault.run(["ls"], env: old).stdoutText == "listed\n")
    }

    @Test("a VAULT_FALLBACK that names the current backend or no backend is a usage error")
    func usage() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment["VAULT_IDENTITY"] = X25519Identity.generate().encoded
        try vault.run(["get", "a"], env: ["VAULT_FALLBACK": "file"]).expectFailure(2, "names the current backend")
        try vault.run(["get", "a"], env: ["VAULT_FALLBACK": "file:\(vault.vaultFile)"]).expectFailure(
            2, "current backend")
        try vault.run(["ls"], env: ["VAULT_FALLBACK": "s3"]).expectFailure(2, "VAULT_FALLBACK is 's3'")
    }
}
