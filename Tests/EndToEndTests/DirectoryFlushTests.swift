import Foundation
import Testing
import VaultTestSupport

/// The directory's fsync fails after the rename (strace injects EIO, as CrashSafetyTests injects
/// kills): the write happened, and the message must say so rather than report it as not made.
@Suite("Directory flush failure")
struct DirectoryFlushTests {
    @Test("EIO from the directory fsync after the rename says the change was made")
    func failedDirectoryFlush() throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: CrashSafetyTests.strace) ? nil : "strace")
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        let runner = vault.runner
        try runner.run(["set", "a"], stdin: [1]).expectSuccess()
        // A traced write of an existing vault counts its fsyncs: the directory's is the last.
        let trace = runner.path("fsync-trace.txt")
        try runTool(
            CrashSafetyTests.strace, ["-f", "-qq", "-e", "trace=fsync", "-o", trace, VaultRunner.binary, "set", "b"],
            input: [2], environment: runner.environment
        ).expectSuccess()
        let fsyncs = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("fsync(") }.count
        #expect(fsyncs >= 2, "a write flushes its file and its directory")

        let injected = try runTool(
            CrashSafetyTests.strace,
            [
                "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:error=EIO:when=\(fsyncs)",
                VaultRunner.binary, "set", "c",
            ],
            input: [3], environment: runner.environment)
        injected.expectFailure(9, "vault.age was changed, but flushing its directory to disk failed")
        #expect(try vault.contents().get() == ["a": [1], "b": [2], "c": [3]], "the write did not happen")
    }
}
