import Foundation
import Testing
import VaultTestSupport

/// The CLI against the session's Secret Service (run under Tests/with-keyring.sh).
@Suite("Secret Service commands")
struct SecretServiceCommandTests {
    @Test("10 parallel sets of one new name leave one item")
    func parallelSetsLeaveOneItem() throws {
        let keyring = try MigrateSecretServiceTests.Keyring()
        defer { keyring.cleanUp() }
        let children = try (0..<10).map { index in
            try keyring.vault.start(
                ["--backend", "secret-service", "set", "same"], stdin: Array("value \(index)".utf8))
        }
        var values: Set<[UInt8]> = []
        for (index, child) in children.enumerated() {
            let result = try #require(try child.wait(seconds: 120), "set \(index) did not finish")
            result.expectSuccess()
            values.insert(Array("value \(index)".utf8))
        }
        #expect(try keyring.itemCount() == 1)
        let got = try keyring.vault.run(["--backend", "secret-service", "get", "same"])
        got.expectSuccess()
        #expect(values.contains(got.stdout))
    }

    @Test("get reads without loading libsecret; what it cannot read that way still reads")
    func getWithoutLibsecret() throws {
        let keyring = try MigrateSecretServiceTests.Keyring()
        defer { keyring.cleanUp() }
        try keyring.vault.run(["--backend", "secret-service", "set", "direct"], stdin: Array("direct value".utf8))
            .expectSuccess()
        // The loader's own report of every library it opens (glibc's LD_DEBUG, on stderr).
        func loaded(_ arguments: [String]) throws -> (ToolResult, Set<String>) {
            let result = try keyring.vault.run(["--backend", "secret-service"] + arguments, env: ["LD_DEBUG": "files"])
            let names = result.stderr.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "file=") else { return nil }
                let name = line[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" && $0 != "[" }
                return String(name.split(separator: "/").last ?? "")
            }
            return (result, Set(names))
        }
        let (got, libraries) = try loaded(["get", "direct"])
        #expect(got.status == 0 && got.stdout == Array("direct value".utf8), "\(got.stderr.suffix(400))")
        #expect(libraries.contains("libsystemd.so.0"), "\(libraries.sorted())")
        #expect(!libraries.contains("libsecret-1.so.0"), "\(libraries.sorted())")
        // A name with no item is for libsecret's path to answer (it looks at the keyring's lock).
        let (missing, fallback) = try loaded(["get", "no-such-item"])
        #expect(missing.status == 1, "\(missing.stderr.suffix(400))")
        #expect(fallback.contains("libsecret-1.so.0"), "\(fallback.sorted())")
    }

    @Test("doctor names the provider that owns the Secret Service")
    func doctorNamesProvider() throws {
        let keyring = try MigrateSecretServiceTests.Keyring()
        defer { keyring.cleanUp() }
        let expected =
            ["keepassxc": "KeePassXC", "kwallet": "KWallet"][
                ProcessInfo.processInfo.environment["VAULT_TEST_PROVIDER"] ?? ""] ?? "GNOME Keyring"
        let report = try keyring.vault.run(["doctor"], unset: ["VAULT_FILE"])
        report.expectSuccess()
        #expect(report.stdoutText.contains("provider: \(expected)"), "\(report.stdoutText)")
        #expect(report.stdoutText.contains("chosen: secret-service"), "\(report.stdoutText)")
    }

    @Test("rm --help says that KeePassXC keeps removed entries in its Recycle Bin, only on KeePassXC")
    func rmHelpNamesRecycleBin() throws {
        let keyring = try MigrateSecretServiceTests.Keyring()
        defer { keyring.cleanUp() }
        let onKeePassXC = ProcessInfo.processInfo.environment["VAULT_TEST_PROVIDER"] == "keepassxc"
        let help = try keyring.vault.run(["--backend", "secret-service", "rm", "--help"])
        help.expectSuccess()
        #expect(help.stdoutText.contains("Recycle Bin") == onKeePassXC, "\(help.stdoutText)")
        let fileHelp = try keyring.vault.run(["--backend", "file", "rm", "--help"])
        fileHelp.expectSuccess()
        #expect(!fileHelp.stdoutText.contains("Recycle Bin"), "\(fileHelp.stdoutText)")
    }
}
