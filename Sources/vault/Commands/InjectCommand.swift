import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

extension CommandSpec {
    static let inject = CommandSpec(
        name: "inject", operands: "",
        summary: "fill a template's {{ vault://SERVICE/NAME }} placeholders with secrets",
        details: """
            Copies TEMPLATE (--in or -i; standard input when absent) to OUT (--out or -o; standard output
            when absent) with each {{ vault://SERVICE/NAME }} replaced by the value of the secret NAME in
            SERVICE, byte for byte (blanks inside the braces are optional; a '/' in SERVICE is written
            %2F, a '%' %25). A '{{' not followed by a reference is copied as it is. All or nothing: every
            reference is resolved before anything is written; a missing secret exits 1, an expired one 3
            (unless --allow-expired), naming the template line and the reference, and then OUT is not
            created (an existing OUT is left as it was). OUT is created with mode 0600 and replaced
            atomically (a temporary file in its folder, then a rename).
            """,
        options: [
            OptionSpec(
                .input, short: "i", value: "TEMPLATE", completion: .file,
                "the template file, -i (default: standard input)"),
            OptionSpec(
                .output, short: "o", value: "OUT", completion: .file,
                "the file to write, mode 0600, -o (default: standard output)"),
            OptionSpec(.allowExpired, "use expired secrets instead of refusing them"),
        ],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let template: [UInt8]
            if let path = invocation.value(.input) {
                template = try ReferenceFiles.read(path, what: "template")
            } else {
                if StandardIO.isTerminal(0) {
                    throw VaultError(.usage, "give the template with -i TEMPLATE, or redirect it to standard input")
                }
                // A template holds references, not secrets: a plain array.
                template = try StandardIO.readAll(
                    limit: ReferenceFiles.inputLimit, tooLarge: "the template is larger than 64 MiB"
                ).unprotectedArray
            }
            let output = try SecretTemplate.render(
                template, vault: try invocation.vault(), allowExpired: invocation.flag(.allowExpired))
            if let path = invocation.value(.output) {
                try ReferenceFiles.writePrivate(path, output)
            } else {
                try StandardIO.write(output, to: 1)
            }
            return ExitStatus.success
        })
}
