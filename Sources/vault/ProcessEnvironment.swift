import VaultCore
import VaultStorage

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

    /// The glue's configuration of `environment` (``all()``), with the tool's answer to whether a
    /// person can answer prompts: standard input and standard error are terminals. The library
    /// never asks `isatty` itself.
    static func configuration(_ environment: [String: String]) -> Configuration {
        Configuration(
            environment: environment, atTerminal: StandardIO.isTerminal(0) && StandardIO.isTerminal(2))
    }

    /// The entries of `environ` as they are (bytes kept exactly, for a child process), less those
    /// whose name is one of `names`. Names are compared as bytes: split as Characters, `NAME=`
    /// followed by a combining mark is one grapheme, and the entry would not be recognised.
    static func entries(dropping names: [String]) -> [UnsafeMutablePointer<CChar>?] {
        let dropped = names.map { Array($0.utf8) }
        var entries: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let pointer = entry.pointee {
            let name = Self.name(of: pointer)
            if !dropped.contains(where: { $0.elementsEqual(name) }) { entries.append(pointer) }
            entry += 1
        }
        return entries
    }

    /// The name of an `environ` entry: its bytes up to the first `=` byte (all of them without one).
    ///
    /// Never split an entry as `Character`s: `NAME=` followed by a combining mark is one grapheme,
    /// so the name would run on into the value.
    static func name(of entry: UnsafePointer<CChar>) -> UnsafeRawBufferPointer {
        let bytes = UnsafeRawBufferPointer(start: entry, count: strlen(entry))
        let end = bytes.firstIndex(of: UInt8(ascii: "=")) ?? bytes.count
        return UnsafeRawBufferPointer(rebasing: bytes[..<end])
    }

    /// The variables vault reads whose bytes must be kept exactly (names, paths, passphrases).
    static func isChecked(_ name: String) -> Bool {
        name.hasPrefix("VAULT_") || name == "HOME" || name == "XDG_DATA_HOME"
    }

    /// Whether an `environ` entry may be a checked variable: `VAULT_…`, `HOME=` or `XDG_DATA_HOME=`.
    private static func startsWithCheckedName(_ entry: UnsafePointer<CChar>) -> Bool {
        strncmp(entry, "VAULT_", 6) == 0 || strncmp(entry, "HOME=", 5) == 0 || strncmp(entry, "XDG_DATA_HOME=", 14) == 0
    }

    /// An error for the first argument or checked variable that is not valid UTF-8, if any.
    ///
    /// Swift repairs invalid UTF-8 to U+FFFD when it makes a `String`, so `caf\xe9` and `caf\xe8`
    /// would name the same secret, and every invalid byte of a passphrase would count the same.
    static func encodingProblem() -> VaultError? {
        for index in 1..<Int(CommandLine.argc) {
            if let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil {
                return VaultError(.usage, "argument \(index) is not valid UTF-8; names, options and paths are UTF-8")
            }
        }
        var pointer = environ
        while let entry = pointer.pointee {
            pointer += 1
            // Only checked variables matter, and their names are ASCII: look at the name's bytes
            // first, and validate (which copies) only the few entries it can concern.
            guard startsWithCheckedName(entry), String(validatingCString: entry) == nil else { continue }
            let name = String(decoding: Self.name(of: entry), as: UTF8.self)  // repaired, for the message only
            if isChecked(name) {
                return VaultError(.usage, "\(name) is not valid UTF-8; vault takes UTF-8 (use a file for other bytes)")
            }
        }
        return nil
    }
}
