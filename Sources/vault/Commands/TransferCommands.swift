import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

extension CommandSpec {
    static let importSecrets = CommandSpec(
        name: "import", operands: "",
        summary: "add secrets from a dotenv or JSON file on standard input",
        details: """
            Reads standard input in the given format into the current service: dotenv (KEY=value lines;
            the KEY is the secret's NAME, see DOTENV in 'man vault') or json (docs/json.md). All or
            nothing: a malformed line or entry fails with its number, and existing secrets with a
            different value fail with exit 7 listing them, before anything is written. --overwrite
            replaces those instead. Secrets that already hold the same value are left as they are.
            A summary goes to standard error. The input may be up to 64 MiB.
            """,
        options: [
            OptionSpec(.format, choices: ["dotenv", "json"], "the input format (required)"),
            OptionSpec(.overwrite, "replace existing secrets whose value differs"),
        ],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let format = try Transfer.format(invocation)
            if StandardIO.isTerminal(0) {
                throw VaultError(
                    .usage,
                    "vault import reads standard input; redirect a file: vault import --format \(format.rawValue) < FILE"
                )
            }
            let service = try invocation.factory.service()
            let input = try StandardIO.readAll(
                limit: Transfer.inputLimit, tooLarge: "standard input is larger than 64 MiB; split the import")
            let items: [ImportItem]
            do throws(VaultError) {
                items = try input.withTemporaryArray { (text) throws(VaultError) in
                    try format.parse(text, service: service)
                }
            } catch {
                throw error.withMessage(error.message + "; nothing was imported")
            }
            let line = ProgressLine("importing")
            defer { line.finish() }
            let summary = try invocation.vault().importSecrets(
                items, overwrite: invocation.flag(.overwrite), onProgress: line.update)
            line.finish()
            StandardIO.error(
                "imported \(summary.added.count + summary.replaced.count) of \(items.count) secrets into '\(service)': "
                    + "\(summary.added.count) added, \(summary.replaced.count) replaced, \(summary.unchanged.count) unchanged"
            )
            return ExitStatus.success
        })

    static let exportSecrets = CommandSpec(
        name: "export", operands: "",
        summary: "write the current service's secrets as dotenv or JSON",
        details: """
            Writes every secret of the current service (--service, VAULT_SERVICE), expired ones included,
            to standard output, sorted by name, in a form 'vault import' reads back unchanged. dotenv
            keeps no expiry times (a note on standard error says so when a secret has one) and cannot
            hold a NAME outside letters, digits and _ . - / or a value that is not UTF-8 text (a NUL
            byte or invalid UTF-8), nor a one-time code seed ('vault otp add'): such a secret fails the
            export with exit 2, naming it, and nothing is written. json holds everything, a seed's
            otpauth URI and its kind included: docs/json.md.
            """,
        options: [OptionSpec(.format, choices: ["dotenv", "json"], "the output format (required)")],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let format = try Transfer.format(invocation)
            let records = try invocation.vault().records(service: try invocation.factory.service())
            let output = try format.encode(records)
            try StandardIO.write(output, to: 1)
            let expiring = records.filter { $0.metadata.expires != nil }.count
            if format == .dotenv, expiring > 0 {
                StandardIO.error(
                    "note: dotenv keeps no expiry times; \(expiring) of these secrets \(expiring == 1 ? "has" : "have") one "
                        + "(--format json keeps them)")
            }
            return ExitStatus.success
        })
}

/// What `import` and `export` share.
enum Transfer {
    /// The largest input `vault import` reads.
    static let inputLimit = 64 << 20

    static func format(_ invocation: Invocation) throws(VaultError) -> TransferFormat {
        guard let text = invocation.value(.format) else {
            throw VaultError(.usage, "give --format dotenv or --format json")
        }
        guard let format = TransferFormat(rawValue: text) else {
            throw VaultError(.usage, "--format is '\(text)'; use dotenv or json")
        }
        return format
    }
}
