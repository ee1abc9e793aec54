public import Foundation

// What the kernel says about a process's flock locks (/proc/locks), so that tests can tell a
// process that holds the vault's lock, or waits for it, from one that merely has not exited yet.

/// Whether /proc/locks lists an flock held by `pid`.
public func holdsLock(_ pid: Int32) -> Bool {
    flockEntries().contains { $0.pid == pid && !$0.blocked }
}

/// Whether `pid` is blocked in flock, waiting for a lock another process holds (a `->` line of
/// /proc/locks).
public func waitsForLock(_ pid: Int32) -> Bool {
    flockEntries().contains { $0.pid == pid && $0.blocked }
}

/// The FLOCK lines of /proc/locks: "1: FLOCK ADVISORY WRITE PID ..." for a lock held,
/// "1: -> FLOCK ADVISORY WRITE PID ..." for a process waiting for it.
private func flockEntries() -> [(pid: Int32, blocked: Bool)] {
    guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
    return locks.split(separator: "\n").compactMap { line in
        var fields = line.split(separator: " ").dropFirst()
        let blocked = fields.first == "->"
        if blocked { fields = fields.dropFirst() }
        guard fields.count > 3, fields.first == "FLOCK", let pid = Int32(fields[fields.startIndex + 3]) else {
            return nil
        }
        return (pid, blocked)
    }
}
