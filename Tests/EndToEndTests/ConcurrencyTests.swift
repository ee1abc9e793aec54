import Foundation
import Synchronization
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Many vault processes on one file at once: no lost update, no torn read, no deadlock, and a
/// lock left by a killed process never blocks the next command.
@Suite("Concurrency", .serialized)
struct ConcurrencyTests {
    /// Every wait on a vault process is bounded by this: a deadlock fails the test instead of hanging it.
    static let timeout = 60.0

    /// A value a reader can check on its own: `shared|writer|round|` and bytes derived from both.
    static func sharedValue(writer: Int, round: Int) -> [UInt8] {
        Array("shared|\(writer)|\(round)|".utf8) + patternBytes(count: 3000, seed: UInt64(writer * 1000 + round + 1))
    }

    static func isWholeSharedValue(_ bytes: [UInt8]) -> Bool {
        let fields = bytes.split(separator: UInt8(ascii: "|"), maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, let writer = Int(String(decoding: fields[1], as: UTF8.self)),
            let round = Int(String(decoding: fields[2], as: UTF8.self))
        else { return false }
        return bytes == sharedValue(writer: writer, round: round)
    }

    @Test("12 writers and 4 readers on one file: every update kept, every read whole, nothing stuck")
    func manyProcessesAtOnce() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        try runner.run(["set", "shared"], stdin: Self.sharedValue(writer: 0, round: 0)).expectSuccess()
        let writers = 12
        let readers = 4
        let rounds = 9
        let tally = Tally()

        onThreads(writers + readers) { worker in
            func run(_ arguments: [String], _ stdin: [UInt8] = []) -> ToolResult? {
                tally.operations.add(1, ordering: .relaxed)
                guard let child = try? runner.start(arguments, stdin: stdin),
                    let result = try? child.wait(seconds: Self.timeout)
                else {
                    tally.failures.withLock {
                        $0.append("worker \(worker): \(arguments) did not finish in \(Self.timeout) s")
                    }
                    return nil
                }
                return result
            }
            func check(_ condition: Bool, _ message: @autoclosure () -> String) {
                if !condition { tally.failures.withLock { $0.append("worker \(worker): \(message())") } }
            }
            if worker < writers {
                var kept: [String] = []
                for round in 0..<rounds {
                    let name = "w\(worker)-\(round)"
                    let value = patternBytes(count: 200 + round, seed: UInt64(worker * 100 + round + 7))
                    guard let set = run(["set", name], value) else { return }
                    check(set.status == 0, "set \(name): \(set.status) \(set.stderr)")
                    guard let got = run(["get", name]) else { return }
                    check(got.status == 0 && got.stdout == value, "get \(name) after set: \(got.status) \(got.stderr)")
                    kept.append(name)
                    if round % 3 == 2 {
                        let victim = kept.remove(at: kept.count - 2)
                        guard let removed = run(["rm", victim]), let gone = run(["get", victim]) else { return }
                        check(removed.status == 0, "rm \(victim): \(removed.status) \(removed.stderr)")
                        check(gone.status == 1 && gone.stdout.isEmpty, "get \(victim) after rm: \(gone.status)")
                    }
                    if round % 4 == 1 {
                        guard let shared = run(["set", "shared"], Self.sharedValue(writer: worker, round: round)) else {
                            return
                        }
                        check(shared.status == 0, "set shared: \(shared.status) \(shared.stderr)")
                    }
                }
                tally.survivors.withLock { $0.formUnion(kept) }
            } else {
                for _ in 0..<(rounds * 3) {
                    guard let got = run(["get", "shared"]) else { return }
                    check(got.status == 0, "get shared: \(got.status) \(got.stderr)")
                    check(
                        Self.isWholeSharedValue(got.stdout),
                        "get shared returned a damaged value (\(got.stdout.count) bytes)")
                    guard let listed = run(["ls"]) else { return }
                    check(
                        listed.status == 0 && listed.stdoutText.contains("shared\n"),
                        "ls: \(listed.status) \(listed.stderr)")
                }
            }
        }

        let failures = tally.failures.withLock { $0 }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        let expected = tally.survivors.withLock { $0 }.union(["shared"])
        let listed = try runner.run(["ls"])
        #expect(Set(listed.stdoutText.split(separator: "\n").map(String.init)) == expected, "lost or extra updates")
        #expect(Self.isWholeSharedValue(try runner.run(["get", "shared"]).stdout))
        print(
            "concurrency: \(writers + readers) processes at once, \(tally.operations.load(ordering: .relaxed)) vault commands, "
                + "\(expected.count) secrets kept, \(failures.count) failures")
    }

    @Test("a writer killed while it holds the lock does not block the next command")
    func killedLockHolder() throws {
        var runner = try VaultRunner()
        defer { runner.cleanUp() }
        runner.environment["VAULT_PASSPHRASE"] = "lock holder"
        // Creating a passphrase vault runs scrypt under the lock: long enough to kill it there.
        let holder = try runner.start(["set", "slow"], stdin: [1], env: ["VAULT_SCRYPT_WORK_FACTOR": "16"])
        let deadline = Date().addingTimeInterval(20)
        while !holdsLock(holder.pid), Date() < deadline { usleep(2000) }
        #expect(holdsLock(holder.pid), "vault never held the lock")
        holder.kill()
        #expect(runner.fileBytes() == nil, "the killed writer left a vault file")
        let next = try runner.run(["set", "next"], stdin: [2], timeout: 20)
        next.expectSuccess()
        #expect(try runner.run(["get", "next"], timeout: 20).stdout == [2])
    }

    @Test("vault waits for a lock another process holds, and goes on when it is released")
    func waitsForLiveLock() throws {
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        try vault.runner.run(["set", "a"], stdin: [1]).expectSuccess()
        let fd = open(vault.runner.vaultFile + ".lock", O_RDWR | O_CLOEXEC)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        let waiting = try vault.runner.start(["set", "b"], stdin: [2])
        // Blocked means the kernel lists it as waiting for the lock, not merely not finished yet.
        let deadline = Date().addingTimeInterval(Self.timeout)
        while !waitsForLock(waiting.pid), waiting.isRunning, Date() < deadline { usleep(2000) }
        #expect(waitsForLock(waiting.pid), "vault did not wait for the lock")
        close(fd)
        let result = try #require(try waiting.wait(seconds: Self.timeout))
        result.expectSuccess()
        #expect((try? vault.contents().get())?.keys.sorted() == ["a", "b"])
    }

    /// What the worker threads report, shared between them.
    final class Tally: Sendable {
        let failures = Mutex<[String]>([])
        let operations = Atomic<Int>(0)
        let survivors = Mutex<Set<String>>([])
    }
}
