#if canImport(Glibc)
    import Glibc
#endif

/// The process environment as a dictionary (without Foundation's ProcessInfo).
enum ProcessEnvironment {
    /// Every `NAME=value` entry of `environ`; an entry without `=` is skipped, a repeated name keeps
    /// its last value. Split on bytes: comparing `Character`s costs more than the rest of a `get`.
    static func all() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var result: [String: String] = [:]
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let entry = environ[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: entry, count: strlen(entry))
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
            result[name] = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
        }
        return result
    }
}
