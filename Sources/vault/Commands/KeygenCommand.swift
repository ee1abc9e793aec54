import VaultCore
import VaultFeatures
import VaultStorage

extension CommandSpec {
    static let keygen = CommandSpec(
        name: "keygen", operands: "",
        summary: "make a new age identity (secret key), X25519 or post-quantum",
        details: """
            Generates an age X25519 identity or, with --pq, a post-quantum hybrid one (ML-KEM-768 +
            X25519, the age1pq1... recipients of age 1.3), in age-keygen's format: a '# created:' line, a
            '# public key:' line with the recipient, and the secret key line. Writes it to standard
            output, or with --out to a new file of mode 0600; an existing file is never overwritten (exit
            7). Unless the key goes to a terminal, the public key is also printed on standard error, as
            age-keygen does. Use the file as VAULT_IDENTITY_FILE, and give the public key to
            'vault init --recipient'. age 1.3's 'age-keygen -pq' makes the same keys.
            """,
        options: [
            OptionSpec(.pq, "make a post-quantum hybrid key (age1pq1...), for files only post-quantum keys open"),
            OptionSpec(
                .output, short: "o", value: "FILE", completion: .file,
                "write the key to this new file, mode 0600, -o (default: standard output)"),
        ],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            let key = try GeneratedKey.generate(postQuantum: invocation.flag(.pq))
            if let path = invocation.value(.output) {
                try key.write(to: path)
                try StandardIO.write("Public key: \(key.recipient)\n".utf8, to: 2)
            } else {
                if !StandardIO.isTerminal(1) { try StandardIO.write("Public key: \(key.recipient)\n".utf8, to: 2) }
                try StandardIO.write(key.identityFile, to: 1)
            }
            return ExitStatus.success
        })
}
