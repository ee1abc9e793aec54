import VaultSecureBytes
public import VaultStorage

/// Dotenv files for `vault exec --env-file`: `VAR=value` lines (the dotenv rules of ``DotEnv``)
/// whose values are either literal or a reference `vault://SERVICE/NAME`.
public enum EnvFile {
    /// The variables `contents` sets, references replaced by their secrets' values, in file order,
    /// each with whether it came from a reference (a secret, which `vault exec` masks).
    ///
    /// Everything is checked before anything is returned: the dotenv syntax, each KEY being a
    /// variable name, each reference resolving (a missing secret is `.notFound`, an expired one
    /// `.expired` unless `allowExpired`), and no value holding a NUL byte. Errors name the file's
    /// line and the reference, never a value.
    public static func variables(
        _ contents: [UInt8], vault: Vault, allowExpired: Bool = false
    ) throws(VaultError) -> [(variable: String, value: [UInt8], isSecret: Bool)] {
        let entries = try DotEnv.parse(contents)
        var references: [(reference: SecretReference, context: String)] = []
        var referenceOfEntry: [SecretReference?] = []
        for entry in entries {
            guard EnvironmentBinding.isValidVariable(entry.key) else {
                throw VaultError(
                    .usage,
                    "env file line \(entry.line): \(entry.key) is not a variable name (letters, digits and _, not starting with a digit)"
                )
            }
            guard SecretReference.looksLikeReference(entry.value) else {
                if entry.value.contains(0) {
                    throw VaultError(
                        .usage, "env file line \(entry.line): the value of \(entry.key) contains a NUL byte")
                }
                referenceOfEntry.append(nil)
                continue
            }
            let context = "env file line \(entry.line)"
            do throws(VaultError) {
                let reference = try SecretReference(parsing: String(decoding: entry.value, as: UTF8.self))
                references.append((reference, context))
                referenceOfEntry.append(reference)
            } catch {
                throw error.withMessage("\(context): \(error.message)")
            }
        }
        let values = try vault.resolve(references, allowExpired: allowExpired)
        for (reference, context) in references where values[reference]!.contains(0) {
            throw VaultError(
                .usage, "\(context): \(reference) holds a NUL byte, which an environment variable cannot hold")
        }
        return zip(entries, referenceOfEntry).map { entry, reference in
            (entry.key, reference.map { Array(values[$0]!) } ?? entry.value, reference != nil)
        }
    }
}
