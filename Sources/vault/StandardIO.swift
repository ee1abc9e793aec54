#if canImport(Glibc)
    import Glibc
#endif
import VaultCore

/// Byte-exact reading and writing of the standard streams.
enum StandardIO {
    /// Writes all of `bytes` to a descriptor, retrying short writes and `EINTR`.
    static func write(_ bytes: some Collection<UInt8>, to fd: Int32) throws(VaultError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let n = array.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw VaultError(.other, "cannot write output: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    static func print(_ text: String) {
        try? write(text.utf8, to: 1)
    }

    /// Prints `vault: message` as one line on stderr.
    static func error(_ message: String) {
        let line = message.map { $0 == "\n" || $0 == "\r" ? " " : $0 }
        try? write("vault: \(String(line))\n".utf8, to: 2)
    }

    /// Reads all of stdin; more than `limit` bytes is a usage error saying `tooLarge`.
    static func readAll(
        limit: Int,
        tooLarge: String = "the value on standard input is larger than 1048576 bytes (the limit is 1 MiB)"
    ) throws(VaultError) -> [UInt8] {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        defer { chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw VaultError(.other, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return buffer }
            buffer.append(contentsOf: chunk[..<n])
            if buffer.count > limit {
                throw VaultError(.usage, tooLarge)
            }
        }
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
