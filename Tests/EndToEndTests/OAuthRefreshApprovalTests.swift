import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Refresh approvals on the approved paths, against the Authlib server: in the OAuth suite, so
/// that its request counters are not shared with tests running at the same time.
extension OAuthRefreshTests {
    @Test("approved paths: the machine that stored it, VAULT_REFRESH_ORIGINS, vault trust NAME, the command list")
    func approvedPaths() throws {
        let server = try OAuthServer.shared()
        let first = try VaultRunner.scripted()
        defer { first.cleanUp() }
        // A second machine: the same vault file and key, its own HOME (state and configuration).
        var second = first
        second.environment["HOME"] = first.path("second-home")
        try FileManager.default.createDirectory(atPath: first.path("second-home"), withIntermediateDirectories: true)

        let issued = try importToken(first, server, name: "gh")
        let refreshes = { try self.refreshes(server) }
        var before = try refreshes()
        let refreshed = try first.run(["get", "gh"])
        #expect(refreshed.status == 0 && refreshed.stdoutText != issued, "\(refreshed.stderr)")
        #expect(try refreshes() == before + 1)

        try waitForExpiry(first, "gh")
        before = try refreshes()
        try second.run(["get", "gh"]).expectFailure(6, "vault trust gh")
        #expect(try second.run(["show", "gh"]).stdoutText.contains("trusted: no"))
        #expect(try refreshes() == before)
        let listed = try second.run(
            ["get", "gh"], env: ["VAULT_REFRESH_ORIGINS": "https://other.example, \(server.base)"])
        #expect(listed.status == 0 && !listed.stdout.isEmpty, "\(listed.stderr)")
        #expect(try refreshes() == before + 1)

        try waitForExpiry(second, "gh")
        try second.run(["get", "gh"]).expectFailure(6, "VAULT_REFRESH_ORIGINS")
        let trusted = try second.run(["trust", "gh"])
        #expect(trusted.status == 0 && trusted.stderr.contains(server.base), "\(trusted.stderr)")
        #expect(try second.run(["show", "gh"]).stdoutText.contains("trusted: yes"))
        #expect(try second.run(["get", "gh"]).status == 0)
        #expect(try refreshes() == before + 2)

        // The first machine logs in again at another origin (the same server by name): the second
        // machine's approval does not follow.
        let moved = try server.issue(expiresIn: 0)
        try first.run(
            [
                "oauth", "import", "gh", "--token-url", "http://localhost:\(server.port)/token", "--client-id",
                "public-cli",
            ],
            stdin: moved
        ).expectSuccess()
        before = try refreshes()
        try second.run(["get", "gh"]).expectFailure(6, "changed since it was approved")
        #expect(try refreshes() == before)
        #expect(try first.run(["get", "gh"]).status == 0)
        #expect(try refreshes() == before + 1)

        // A refresh command: runs where it was set, elsewhere only from the user's own list.
        let marker = first.path("minted")
        let command = "touch \(marker); echo fresh"
        try first.run(["set", "cmd", "--expires-in", "1h", "--refresh-command", command]).expectSuccess()
        try second.run(["get", "cmd"]).expectFailure(6, "vault trust cmd")
        #expect(!FileManager.default.fileExists(atPath: marker))
        let list = first.path("second-home/.config/vault/refresh-commands")
        try FileManager.default.createDirectory(
            atPath: first.path("second-home/.config/vault"), withIntermediateDirectories: true)
        try "# approved commands\n\(command)\n".write(toFile: list, atomically: false, encoding: .utf8)
        chmod(list, 0o666)
        try second.run(["get", "cmd"]).expectFailure(6, "may be written by group or others (mode 666)")
        #expect(!FileManager.default.fileExists(atPath: marker))
        chmod(list, 0o600)
        let minted = try second.run(["get", "cmd"])
        #expect(minted.status == 0 && minted.stdoutText == "fresh", "\(minted.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
