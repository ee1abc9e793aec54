import Foundation
import Testing
import VaultTestSupport

@testable import VaultCore
@testable import VaultStorage
@testable import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The one errno path: `valueOrErrno` retries EINTR, and the error keeps the `Errno` as data.
@Suite("System calls")
struct SyscallTests {
    @Test("EINTR is retried in one place; the call's value comes back")
    func retriesInterrupts() throws {
        var calls = 0
        let value = try syscall("read a test") { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 5
        }
        #expect(value == 5 && calls == 3)
        calls = 0
        let once = valueOrErrno(retryOnInterrupt: false) { () -> Int32 in
            calls += 1
            errno = EINTR
            return -1
        }
        #expect(once == .failure(.interrupted) && calls == 1)
    }

    @Test("a full disk and a permission problem are told apart by their Errno, not their text")
    func keepsErrno() {
        for (code, errno) in [(ENOSPC, Errno.noSpace), (EACCES, Errno.permissionDenied)] {
            #expect {
                try syscall("write a test") { () -> Int32 in
                    Glibc.errno = code
                    return -1
                }
            } throws: { error in
                guard let error = error as? VaultError else { return false }
                return error.errno == errno && error.code == .other
                    && error.message == "cannot write a test: \(String(cString: strerror(code)))"
            }
        }
    }

    @Test("a real ENOSPC (/dev/full) reaches the caller as .noSpace")
    func realFullDisk() throws {
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let byte: [UInt8] = [1]
        #expect {
            try syscall("write /dev/full") { byte.withUnsafeBytes { write(fd, $0.baseAddress, 1) } }
        } throws: { ($0 as? VaultError)?.errno == .noSpace }
    }

    @Test("file operations keep the Errno: a path under a file is ENOTDIR; a missing file is nil")
    func fileOperations() throws {
        let scratch = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(scratch) }
        let file = scratch.path + "/file"
        #expect(try FileSystem.read(file) == nil)
        #expect(try OpenFile(reading: file) == nil)
        try Data([1]).write(to: URL(fileURLWithPath: file))
        let under = file + "/under"
        let notADirectory = { (error: any Error) in (error as? VaultError)?.errno == Errno(rawValue: ENOTDIR) }
        #expect(performing: { try FileSystem.read(under) }, throws: notADirectory)
        #expect(performing: { try FileSystem.readRegularFile(under, limit: 10) }, throws: notADirectory)
        #expect(performing: { try OpenFile(reading: under) }, throws: notADirectory)
        #expect(performing: { try FileSystem.makeDirectories(under + "/deeper") }, throws: notADirectory)
    }
}
