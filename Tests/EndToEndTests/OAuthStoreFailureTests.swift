import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A store write that fails after the server rotated the refresh token (a full disk here; a
/// keyring that does not answer in time is the same to vault): the refresh journal keeps the
/// answer, and the next reads store it. In the serialized suite, whose counts are the server's.
extension OAuthRefreshTests {
    @Test(
        "the vault file cannot be written after a refresh (ENOSPC): exit 9, the token kept; the next gets need no login"
    )
    func storeFailsAfterRefresh() throws {
        var (vault, server) = try setUp()
        defer { vault.cleanUp() }
        let runtime = vault.path("run")
        vault.environment["XDG_RUNTIME_DIR"] = runtime
        let old = try importToken(vault, server)
        let start = try refreshes(server)
        let revoked = try server.stats()["revoked_families"] ?? -1
        // Every rename in the vault file's folder (the store's, and its retries') fails as on a
        // full disk; the journal's, in $XDG_RUNTIME_DIR, succeeds.
        let failed = try straced(
            vault, ["get", "gh"], inject: "rename,renameat,renameat2", "error=ENOSPC:when=1+",
            in: Self.folder(of: vault.vaultFile))
        failed.expectFailure(9, "No space left on device")
        #expect(
            failed.stderr.contains("the refreshed token of 'gh' is kept and will be stored by the next 'vault get gh'"))
        #expect(try refreshes(server) - start == 1)
        let journals = try FileManager.default.contentsOfDirectory(atPath: runtime + "/vault").filter {
            $0.hasSuffix(".journal")
        }
        #expect(journals.count == 1)
        var st = stat()
        #expect(lstat(runtime + "/vault/" + (journals.first ?? ""), &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(try vault.run(["get", "gh", "--allow-expired"]).stdoutText == old, "the vault file changed")

        // Sixteen readers at once: the first stores the journal's answer, the others read it
        // (skew 0: the stored token is current for its whole lifetime, however slow the machine).
        vault.environment["VAULT_REFRESH_SKEW"] = "0"
        let results = Self.concurrentGets(vault, "gh")
        #expect(results.allSatisfy { $0?.status == 0 }, "\(results.map { $0?.stderr ?? "timeout" })")
        let tokens = Set(results.map { $0?.stdoutText ?? "" })
        #expect(tokens.count == 1 && !tokens.contains(old) && !tokens.contains(""), "\(tokens)")
        #expect(!failed.stderr.contains(old) && !tokens.contains { failed.stderr.contains($0) })
        // The journal's token may have expired during the failed get's retries (the server's
        // tokens live 3 s): then it is refreshed once more, with the journal's refresh token.
        let sent = try refreshes(server) - start
        #expect(sent == 1 || sent == 2, "\(sent) refresh requests")
        #expect(try server.stats()["revoked_families"] == revoked, "a rotated refresh token was reused")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: runtime + "/vault").allSatisfy {
                !$0.hasSuffix(".journal")
            })

        // The rotated refresh token is the one stored: the next expiry refreshes with it.
        try waitForExpiry(vault, "gh")
        let next = try vault.run(["get", "gh"])
        next.expectSuccess()
        #expect(!next.stdout.isEmpty && !tokens.contains(next.stdoutText))
        #expect(try refreshes(server) - start == sent + 1)
        #expect(try server.stats()["revoked_families"] == revoked)
    }

    @Test(
        "Secret Service: killed after the journal, before the keyring write: the next get stores it, secret-tool reads it"
    )
    func killBeforeKeyringWrite() throws {
        var (vault, server) = try setUp()
        try SessionKeyring.require(&vault)
        vault.environment["VAULT_BACKEND"] = "secret-service"
        if vault.environment["XDG_RUNTIME_DIR"] == nil { vault.environment["XDG_RUNTIME_DIR"] = vault.path("run") }
        defer {
            SessionKeyring.clear(vault.service, vault)
            vault.cleanUp()
        }
        let old = try importToken(vault, server)
        let start = try refreshes(server)
        let revoked = try server.stats()["revoked_families"] ?? -1
        // The journal's write ends with an fsync of its folder (after the rename): killed there, the
        // journal is in place and the keyring untouched.
        let folder = Self.folder(of: (vault.environment["XDG_RUNTIME_DIR"] ?? "") + "/vault/journal")
        let killed = try straced(vault, ["get", "gh"], inject: "fsync", "signal=KILL", in: folder)
        #expect(killed.status == 128 + SIGKILL && killed.stdout.isEmpty, "\(killed.status) \(killed.stderr)")
        #expect(try refreshes(server) - start == 1)
        func lookup() throws -> String {
            try vault.runProgram("/usr/bin/secret-tool", ["lookup", "service", vault.service, "username", "gh"])
                .stdoutText
        }
        #expect(try lookup() == old, "the keyring was written")
        let killedAt = Date()
        let next = try vault.run(["get", "gh"], env: ["VAULT_REFRESH_SKEW": "0"])
        next.expectSuccess()
        #expect(!next.stdout.isEmpty && next.stdoutText != old)
        if Date().timeIntervalSince(killedAt) < 2 {
            #expect(try refreshes(server) - start == 1, "the journal's answer was asked for again")
        }
        #expect(try server.stats()["revoked_families"] == revoked, "a rotated refresh token was reused")
        #expect(try lookup() == next.stdoutText)
    }
}
