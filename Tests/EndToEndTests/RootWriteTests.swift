import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Root never hands a file holding secrets to another user: `vault inject -o` over another
/// user's file (in a sticky folder such as /tmp) is refused, and the file is left as it was.
/// (The vault file and its lock keep their owner: VaultFileNeighbourTests.)
@Suite("Root and other users' files")
struct RootWriteTests {
    @Test("as root, inject -o over another uid's file in a 1777 folder exits 9, one line; the file stays theirs")
    func injectOverOthersFile() throws {
        guard geteuid() == 0 else { try Test.cancel("needs root, to make a file another user owns") }
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.set("db", "s3cret-value")
        let shared = vault.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(chmod(shared, 0o1777) == 0)
        let out = shared + "/out.env"
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: out))
        #expect(chown(out, 4242, 4242) == 0)
        let template = vault.path("template")
        try Data("DB={{ vault://\(vault.service)/db }}\n".utf8).write(to: URL(fileURLWithPath: template))

        let refused = try vault.run(["inject", "-i", template, "-o", out])
        refused.expectFailure(9, "\(out) belongs to uid 4242")
        #expect(!refused.stderr.contains("s3cret-value"))
        var st = stat()
        #expect(stat(out, &st) == 0 && st.st_uid == 4242, "out.env is now owned by \(st.st_uid)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "theirs\n")

        // A name no one holds yet is written, root's and 0600.
        let mine = shared + "/mine.env"
        try vault.run(["inject", "-i", template, "-o", mine]).expectSuccess()
        #expect(stat(mine, &st) == 0 && st.st_uid == 0 && st.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "DB=s3cret-value\n")
    }
}
