import VaultCore
import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Byte-exact reading and writing of the standard streams.
enum StandardIO {
    /// Writes all of `bytes` to a descriptor, retrying short writes and `EINTR`.
    static func write(_ bytes: some Collection<UInt8>, to fd: Int32) throws(VaultError) {
        // Writes from the caller's storage when it is contiguous (a secret value), so that no
        // unwiped copy of it is made here.
        var failure: VaultError?
        let direct: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(VaultError) { try write(UnsafeRawBufferPointer(buffer), to: fd) } catch { failure = error }
        }
        if direct == nil {
            Array(bytes).withUnsafeBytes { buffer in
                do throws(VaultError) { try write(buffer, to: fd) } catch { failure = error }
            }
        }
        if let failure { throw failure }
    }

    private static func write(_ buffer: UnsafeRawBufferPointer, to fd: Int32) throws(VaultError) {
        var offset = 0
        while offset < buffer.count {
            offset += try syscall("write output") {
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
        }
    }

    static func print(_ text: String) {
        try? write(text.utf8, to: 1)
    }

    /// Prints `vault: message` as one line on stderr.
    ///
    /// Line breaks become spaces and other control characters `?`, whatever a message quotes, so
    /// that nothing read from a file or the environment can send escape sequences to the terminal.
    static func error(_ message: String) {
        var line = "vault: "
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\u{2028}", "\u{2029}": line += " "
            case _ where scalar.properties.generalCategory == .control: line += "?"
            default: line.unicodeScalars.append(scalar)
            }
        }
        try? write((line + "\n").utf8, to: 2)
    }

    /// Reads all of stdin; more than `limit` bytes is a usage error saying `tooLarge`.
    ///
    /// Reads straight into secret bytes that grow by copying into a larger buffer (the old one
    /// zeroes itself), so no copy of the value is left behind in freed memory. It starts at
    /// 64 KiB + 1 bytes, so a large `limit` (import) costs only what is read, and a token costs
    /// 17 pages, not the 257 of a 1 MiB buffer that is zeroed when made, trimmed and released
    /// (2 million instructions and 250 page faults of every `set`).
    static func readAll(
        limit: Int,
        tooLarge: String = "the value on standard input is larger than 1048576 bytes (the limit is 1 MiB)"
    ) throws(VaultError) -> SecureBytes {
        var buffer = SecureBytes(zeros: min(limit, 1 << 16) + 1)
        var count = 0
        while count <= limit {
            if count == buffer.count {
                var larger = SecureBytes(zeros: min(buffer.count * 2, limit + 1))
                larger.withUnsafeMutableBytes { target in buffer.withUnsafeBytes { target.copyMemory(from: $0) } }
                buffer = larger
            }
            let n = try syscall("read standard input") {
                buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress! + count, $0.count - count) }
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw VaultError(.usage, tooLarge) }
        buffer.removeSubrange(count...)  // keeps the storage and zeroes the bytes past the end
        return buffer
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
