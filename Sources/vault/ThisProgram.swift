import VaultCore
import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// This program, by its absolute path: what git's configuration (`vault git setup`) and a D-Bus
/// activation file (`vault secret-service enable`) run again later, from anywhere.
enum ThisProgram {
    static func path() throws(VaultError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw VaultError(.other, "cannot find this program's path in /proc/self/exe") }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
