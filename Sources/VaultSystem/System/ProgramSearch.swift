#if canImport(Glibc)
    import Glibc
#endif

/// Where vault finds a program it starts by name (git for `vault git setup`, `age-plugin-NAME`):
/// the one PATH lookup of vault, so that every program follows one rule.
///
/// Only the ABSOLUTE folders of `PATH` are searched: a relative entry (`.`, `bin`, an empty one)
/// names a folder that depends on where vault was started, where anyone who can write a file
/// could plant a program of that name. The first regular, executable file of that name wins.
package enum ProgramSearch {
    /// The path of program `name` (a bare name, no `/`) in the absolute folders of `searchPath`
    /// (`PATH` as vault was given it), or nil.
    package static func find(_ name: String, in searchPath: String?) -> String? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        for folder in (searchPath ?? "").split(separator: ":", omittingEmptySubsequences: true)
        where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// How a message says a program was not found.
    package static func notFound(_ name: String) -> String {
        "\(name) was not found in PATH (only its absolute folders are searched)"
    }
}
