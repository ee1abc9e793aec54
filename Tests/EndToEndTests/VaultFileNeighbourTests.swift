import Foundation
import Synchronization
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What lies beside and around the vault file: its lock and temporary files deleted under
/// running writers, a vault path that is a symbolic link, and a vault owned by another user
/// written by root (`sudo vault set`).
@Suite("Vault file neighbours", .serialized)
struct VaultFileNeighbourTests {
    @Test("deleting the lock and temporary files during writes loses no acknowledged update")
    func deletedLockFiles() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        try runner.run(["set", "seed"], stdin: [0]).expectSuccess()
        let writers = 4
        let namesEach = 25
        let tally = Tally()
        let directory = vault.directory
        let vaultName = URL(fileURLWithPath: runner.vaultFile).lastPathComponent

        onThreads(writers + 1) { worker in
            guard worker < writers else {
                // Deletes everything beside the vault file, as fast as it can, until the writers end.
                while tally.finished.load(ordering: .acquiring) < writers {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                    where name != vaultName && unlink(directory + "/" + name) == 0 {
                        tally.deletions.add(1, ordering: .relaxed)
                    }
                }
                return
            }
            for index in 0..<namesEach {
                let name = "w\(worker)-\(index)"
                guard let child = try? runner.start(["set", name], stdin: Array(name.utf8)),
                    let result = try? child.wait(seconds: ConcurrencyTests.timeout)
                else {
                    tally.refused.withLock { $0.append("\(name): did not finish") }
                    continue
                }
                if result.status == 0 {
                    tally.acknowledged.withLock { _ = $0.insert(name) }
                } else {
                    tally.refused.withLock { $0.append("\(name): \(result.status) \(result.stderr)") }
                }
            }
            tally.finished.add(1, ordering: .releasing)
        }

        let kept = tally.acknowledged.withLock { $0 }
        let contents = try vault.contents().get()
        let lost = kept.subtracting(contents.keys).sorted()
        #expect(lost.isEmpty, "\(lost.count) acknowledged names lost: \(lost)")
        for name in kept { #expect(contents[name] == Array(name.utf8), "\(name) changed") }
        try runner.run(["ls"]).expectSuccess()
        // How many sets get through while files vanish under them depends on how fast the deleter
        // runs against the writers (8 to 91 of 100 seen here); some must, or nothing was tested.
        #expect(!kept.isEmpty, "no write succeeded: \(tally.refused.withLock { $0 })")
        print(
            "deleted neighbours: \(tally.deletions.load(ordering: .relaxed)) files deleted under \(writers) writers, "
                + "\(kept.count) of \(writers * namesEach) sets acknowledged, \(lost.count) lost")
    }

    /// What the writer threads and the deleting thread report, shared between them.
    final class Tally: Sendable {
        let acknowledged = Mutex<Set<String>>([])
        let refused = Mutex<[String]>([])
        let finished = Atomic<Int>(0)
        let deletions = Atomic<Int>(0)
    }

    @Test("a vault path that is a symbolic link is written through, with the lock beside the target")
    func symbolicLink() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "a"], stdin: [1]).expectSuccess()
        let links = vault.runner.path("links")
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: false)
        let link = links + "/vault.age"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../vault.age")
        let env = ["VAULT_FILE": link]

        try vault.runner.run(["set", "b"], stdin: [2], env: env).expectSuccess()
        try vault.runner.run(["rm", "a"], env: env).expectSuccess()
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../vault.age", "the link was replaced")
        #expect(try vault.contents().get() == ["b": [2]], "the target did not get the writes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: links) == ["vault.age"], "files beside the link")
        #expect(try vault.runner.run(["get", "b"], env: env).stdout == [2])

        let dangling = links + "/dangling.age"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "missing/vault.age")
        try vault.runner.run(["set", "c"], stdin: [3], env: ["VAULT_FILE": dangling])
            .expectFailure(2, "is a symbolic link to a missing file; create the target or name it with --file")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "missing/vault.age")
        #expect(try FileManager.default.contentsOfDirectory(atPath: links).sorted() == ["dangling.age", "vault.age"])
    }

    @Test("root writing another user's vault (sudo vault set) leaves it and its lock file theirs, 0600")
    func rootKeepsTheOwner() throws {
        // Only root can write a file another user owns; `make test` runs as root.
        guard geteuid() == 0 else { try Test.cancel("needs root, to write a vault another user owns") }
        let user = try Unprivileged.make()
        defer { user.cleanUp() }
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let file = vault.runner.vaultFile
        let lock = file + ".lock"
        // The user's vault, made by them in their directory (also their HOME, as with sudo -E);
        // the lock file is made again by root.
        #expect(chown(vault.directory, user.uid, user.uid) == 0)
        func setAsUser(_ name: String, _ value: UInt8) throws {
            try runTool(
                user.program, user.prefix + ["set", name], input: [value], environment: vault.runner.environment
            )
            .expectSuccess()
        }
        try setAsUser("a", 1)
        unlink(lock)

        try vault.runner.run(["set", "b"], stdin: [2]).expectSuccess()
        for path in [file, lock] {
            var st = stat()
            #expect(stat(path, &st) == 0)
            #expect(st.st_uid == user.uid && st.st_gid == user.uid, "\(path) owned by \(st.st_uid):\(st.st_gid)")
            #expect(st.st_mode & 0o777 == 0o600, "\(path) has mode \(modeString(Int(st.st_mode & 0o777)))")
        }
        try setAsUser("c", 3)
        #expect(try vault.contents().get() == ["a": [1], "b": [2], "c": [3]])
        for entry in FileManager.default.enumerator(atPath: vault.directory)?.allObjects as? [String] ?? [] {
            var st = stat()
            #expect(lstat(vault.directory + "/" + entry, &st) == 0 && st.st_uid == user.uid, "\(entry) is root's")
        }
    }
}
