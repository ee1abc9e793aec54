package import Crypto

/// SHA-256 in lower-case hex: the one digest vault names and compares its own files by (refresh
/// locks, journals and leases, login caches, refresh approvals, header trust records), so that no
/// secret's name, server or token reaches the file system, and one journal or record is matched
/// to the token or header it belongs to.
package enum Digest {
    /// The hex of the SHA-256 of what `update` feeds the hash, cut to its first `bytes` bytes
    /// (all 32 by default; 16 where a file name only has to be unique).
    package static func hex(bytes: Int = 32, _ update: (inout SHA256) -> Void) -> String {
        var hash = SHA256()
        update(&hash)
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(2 * bytes)
        for byte in hash.finalize().prefix(bytes) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hex SHA-256 of `data`, cut to its first `bytes` bytes.
    package static func hex(_ data: UnsafeRawBufferPointer, bytes: Int = 32) -> String {
        hex(bytes: bytes) { $0.update(bufferPointer: data) }
    }

    /// The hex SHA-256 of `data`, cut to its first `bytes` bytes.
    package static func hex(_ data: [UInt8], bytes: Int = 32) -> String {
        data.withUnsafeBytes { hex($0, bytes: bytes) }
    }

    /// The hex SHA-256 of `text`'s UTF-8, cut to its first `bytes` bytes.
    package static func hex(_ text: String, bytes: Int = 32) -> String { hex(Array(text.utf8), bytes: bytes) }
}
