import VaultCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process environment as a dictionary (without Foundation's ProcessInfo).
enum ProcessEnvironment {
    static func all() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// The variables vault reads whose bytes must be kept exactly (names, paths, passphrases).
    static func isChecked(_ name: String) -> Bool {
        name.hasPrefix("VAULT_") || name == "HOME" || name == "XDG_DATA_HOME"
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
            guard String(validatingCString: entry) == nil else { continue }
            let text = String(cString: entry)  // repaired, for the name only
            let name = String(text.prefix { $0 != "=" })
            if isChecked(name) {
                return VaultError(.usage, "\(name) is not valid UTF-8; vault takes UTF-8 (use a file for other bytes)")
            }
        }
        return nil
    }
}
