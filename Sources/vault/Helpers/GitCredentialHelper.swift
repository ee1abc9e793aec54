import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

/// `git-credential-vault get|store|erase`: git's credential helper protocol on standard input
/// and output (gitcredentials(7)). Set up with `git config --global credential.helper vault`.
enum GitCredentialHelper {
    static let usage = "usage: git-credential-vault [--backend B] [--file PATH] [--service NAME] get|store|erase"

    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        do throws(VaultError) {
            let (options, operands) = try HelperRole.parse(arguments)
            guard operands.count == 1 else { throw VaultError(.usage, usage) }
            let operation = operands[0]
            guard ["get", "store", "erase"].contains(operation) else { return ExitStatus.success }
            let input = try StandardIO.readAll(
                limit: 1 << 20, tooLarge: "the credential on standard input is over 1 MiB")
            let credential = try input.withTemporaryArray { (text) throws(VaultError) in try GitCredential.parse(text) }
            let storage = GitCredentials.storage(
                for: try HelperRole.store(options, environment: environment), service: options.service)
            // Secret bytes: zeroed when released.
            try StandardIO.write(try storage.perform(operation, credential), to: 1)
            return ExitStatus.success
        } catch {
            StandardIO.error(error.wording)
            return ExitStatus.of(error.code)
        }
    }
}
