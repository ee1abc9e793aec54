import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultOpenBao
@testable import VaultStorage
@testable import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The folders and files vault keeps beside a living token (refresh locks, journals, a cached
/// OpenBao login) and the files `inject -o` writes: whose they are, who may open them, and how
/// long a lock is waited for (Support/System/PrivateFile.swift, Support/System/FileLock.swift).
@Suite("Private folders, other users' files and lock waits")
struct PrivateFolderTests {
    /// A uid no one on a test machine has.
    static let stranger: uid_t = 4242

    func folder(mode: mode_t, owner: uid_t? = nil) throws -> String {
        let path = try makeTemporaryDirectory(prefix: "private-folder").path
        #expect(chmod(path, mode) == 0)
        if let owner { #expect(chown(path, owner, owner) == 0) }
        return path
    }

    func owner(_ path: String) -> uid_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_uid : nil
    }

    @Test("a folder for locks may be 0755 but not writable by others; one for secrets must be 0700")
    func folderModes() throws {
        let open = try folder(mode: 0o777)
        defer { removeTemporaryDirectory(URL(fileURLWithPath: open)) }
        let readable = try folder(mode: 0o755)
        defer { removeTemporaryDirectory(URL(fileURLWithPath: readable)) }
        let closed = try folder(mode: 0o700)
        defer { removeTemporaryDirectory(URL(fileURLWithPath: closed)) }
        // .other is also what a failed system call gives: the message says which failure it is.
        let forLocks = expectFailure(.other) { try FileSystem.makePrivateDirectory(open, holdingSecrets: false) }
        #expect(forLocks?.message.contains("is open to others (mode 777)") == true, "\(String(describing: forLocks))")
        do {
            try FileSystem.makePrivateDirectory(open, holdingSecrets: true)
            Issue.record("a folder of mode 0777 was accepted")
        } catch {
            #expect(error.code == .other)
            #expect(error.message.contains("is open to others (mode 777)"), "\(error.message)")
            #expect(error.remedy == .restrictMode(path: open, mode: "700"), "\(error)")
        }
        try FileSystem.makePrivateDirectory(readable, holdingSecrets: false)
        let forSecrets = expectFailure(.other) { try FileSystem.makePrivateDirectory(readable, holdingSecrets: true) }
        #expect(
            forSecrets?.message.contains("is open to others (mode 755)") == true, "\(String(describing: forSecrets))")
        try FileSystem.makePrivateDirectory(closed, holdingSecrets: true)
        // Made when missing, 0700.
        try FileSystem.makePrivateDirectory(closed + "/vault", holdingSecrets: true)
        var st = stat()
        #expect(stat(closed + "/vault", &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    @Test("as root: another user's folder is refused, another user's file is never replaced nor given secrets")
    func otherUsers() throws {
        guard geteuid() == 0 else { try Test.cancel("needs root, to make files another user owns") }
        let theirs = try folder(mode: 0o700, owner: Self.stranger)
        defer { removeTemporaryDirectory(URL(fileURLWithPath: theirs)) }
        do {
            try FileSystem.makePrivateDirectory(theirs, holdingSecrets: true)
            Issue.record("root accepted a folder of uid \(Self.stranger)")
        } catch {
            #expect(error.message.contains("belongs to uid \(Self.stranger)"), "\(error.message)")
        }
        // A refresh journal or a cached login cannot be written there, nor read from there.
        let journal = RefreshJournal(
            directory: theirs, name: try SecretName(service: "s", account: "t"), store: MemoryStore())
        let refused = expectFailure(.other) { try FileSystem.writePrivate(Array("secret".utf8), to: journal.path) }
        #expect(refused?.message.contains("belongs to uid \(Self.stranger)") == true, "\(String(describing: refused))")
        let cache = OpenBaoTokenCache(path: theirs + "/openbao-token-x")
        cache.store(
            SecureBytes(Array("s.token".utf8)),
            expires: Timestamp(secondsSince1970: Timestamp.now().secondsSince1970 + 3600))
        #expect(try FileManager.default.contentsOfDirectory(atPath: theirs).isEmpty)

        // A file of theirs in a sticky folder of root's (`inject -o out.env` in /tmp): refused,
        // left as it was and theirs. Before, it was replaced and given back to them, secrets and all.
        let sticky = try folder(mode: 0o1777)
        defer { removeTemporaryDirectory(URL(fileURLWithPath: sticky)) }
        let out = sticky + "/out.env"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: out))
        #expect(chown(out, Self.stranger, Self.stranger) == 0)
        do {
            try ReferenceFiles.writePrivate(out, Array("TOKEN=secret\n".utf8))
            Issue.record("root replaced a file of uid \(Self.stranger)")
        } catch {
            #expect(error.code == .other)
            #expect(
                error.message == "\(out) belongs to uid \(Self.stranger): root does not replace another "
                    + "user's file with secrets")
            #expect(error.remedy == .removeForeignFile)
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "old\n")
        #expect(owner(out) == Self.stranger)
        // A new file, or root's own, is root's and 0600.
        try ReferenceFiles.writePrivate(sticky + "/new.env", Array("TOKEN=secret\n".utf8))
        #expect(owner(sticky + "/new.env") == 0)
    }

    @Test("a lock held elsewhere is waited for only as long as asked, then .unavailable naming what")
    func boundedLockWait() throws {
        let directory = try makeTemporaryDirectory(prefix: "lock-wait")
        defer { removeTemporaryDirectory(directory) }
        let path = directory.path + "/held.lock"
        // flock locks belong to the open file description: a second open conflicts even here.
        var held: LockFile? = try LockFile(path: path)
        do {
            _ = try LockFile(path: path, waitingAtMost: 0.3, for: "the refresh of 'tok'")
            Issue.record("the lock was taken while held")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.hasPrefix("gave up after 0.3 s waiting for the refresh of 'tok'"), "\(error.message)")
        }
        withExtendedLifetime(held) {}
        held = nil
        _ = try LockFile(path: path, waitingAtMost: 0.3, for: "the refresh of 'tok'")
    }
}
