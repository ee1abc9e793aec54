import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

/// `docker-credential-vault store|get|erase|list|version`: the docker-credential-helpers
/// protocol. Set up with `"credsStore": "vault"` or `"credHelpers": {"REGISTRY": "vault"}` in
/// the Docker (or containers) auth file.
enum DockerCredentialHelper {
    static let usage =
        "usage: docker-credential-vault [--backend B] [--file PATH] [--service NAME] store|get|erase|list|version"

    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        do throws(VaultError) {
            let (options, operands) = try HelperRole.parse(arguments)
            guard operands.count == 1 else { throw VaultError(.usage, usage) }
            if operands[0] == "version" {
                StandardIO.print("docker-credential-vault (vault) \(versionString)\n")
                return ExitStatus.success
            }
            guard ["store", "get", "erase", "list"].contains(operands[0]) else { throw VaultError(.usage, usage) }
            let input = try StandardIO.readAll(limit: 1 << 20, tooLarge: "the input is over 1 MiB")
            let credentials = DockerCredentials(
                vault: Vault(store: try HelperRole.store(options, environment: environment)),
                service: options.service ?? DockerCredentials.defaultService)
            // The server URL comes as the whole input, usually with a final newline.
            let serverURL = String(decoding: input, as: UTF8.self).trimmingNewlines
            switch operands[0] {
            case "store":
                try input.withTemporaryArray { (json) throws(VaultError) in try credentials.store(json: json) }
            case "get":
                guard let answer = try credentials.get(serverURL: serverURL) else { return notFound() }
                try StandardIO.write(answer, to: 1)
            case "erase":
                guard try credentials.erase(serverURL: serverURL) else { return notFound() }
            default:
                try StandardIO.write(try credentials.list(), to: 1)
            }
            return ExitStatus.success
        } catch {
            // As docker-credential-helpers' `credentials.Serve`: the clients read the error from
            // standard output and know only success and failure.
            StandardIO.print(error.wording + "\n")
            return 1
        }
    }

    /// The exact text the clients match, on standard output as docker-credential-helpers writes it.
    private static func notFound() -> Int32 {
        StandardIO.print(DockerCredentials.notFound + "\n")
        return ExitStatus.of(.notFound)
    }
}

extension String {
    fileprivate var trimmingNewlines: String {
        var text = Substring(self)
        while text.last == "\n" || text.last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
