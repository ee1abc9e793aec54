import Foundation
import Testing
import VaultTestSupport

/// vault starts a program one way, `ChildProcess` (a process group and an empty session keyring
/// of its own, no inherited descriptor, bounded reading, ECHILD a failure). Read from the
/// package's sources, in process: no other Swift file under `Sources/` may spawn, fork or exec.
@Suite("One way to start a program")
struct ChildProcessSourceTests {
    /// Files that may start a program, each with why.
    static let allowed: [(file: String, why: String)] = [
        ("VaultSystem/System/ChildProcess.swift", "the one way vault spawns a child")
    ]

    /// The calls that start a program: libc's, and the CVaultProcess shims that wrap them. (Not
    /// `\b`: Swift's default word boundary does not fall between `Glibc.` and `system`.)
    static var spawnCall: Regex<(Substring, Substring, Substring)> {
        /(^|\W)(posix_spawnp?|fork|vfork|system|popen|\w*exec[lv]\w*|\w*spawnInOwnKeyring)\s*\(/
    }

    /// The lines of `source`'s code (comments and literals left out) that start a program.
    static func spawningLines(_ source: String) -> [Int] {
        SwiftLiterals.code(in: source).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains(spawnCall) }.map { $0.offset + 1 }
    }

    @Test("no Swift file under Sources/ but ChildProcess.swift spawns, forks or execs")
    func oneWay() throws {
        var allowedSeen = Set<String>()
        for (file, source) in try SwiftLiterals.sources(under: "Sources", atLeast: 100) {
            let lines = Self.spawningLines(source)
            if Self.allowed.contains(where: { $0.file == file }) {
                if !lines.isEmpty { allowedSeen.insert(file) }
                continue
            }
            for line in lines {
                Issue.record("Sources/\(file):\(line) starts a program: use ChildProcess")
            }
        }
        for entry in Self.allowed where !allowedSeen.contains(entry.file) {
            Issue.record("\(entry.file) no longer starts a program, drop it from the list")
        }
    }

    @Test("the call finder: calls in code, not in comments, literals or longer names")
    func finder() {
        let source = #"""
            // fork() in a comment
            let a = "popen(\(x))"
            let pid = fork()
            posix_spawnp(&pid, "git", nil, nil, argv, envp)
            _ = CVaultProcess_execvpe(file, argv, envp)
            let b = fileSystem(x); posix_spawn_file_actions_init(&actions); forked(y)
            _ = Glibc.system ("ls")
            """#
        #expect(Self.spawningLines(source) == [3, 4, 5, 7])
    }
}
