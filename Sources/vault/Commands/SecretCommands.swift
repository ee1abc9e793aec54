import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

extension CommandSpec {
    static let set = CommandSpec(
        name: "set", operands: "NAME", operandCompletion: .secretName,
        summary: "store a secret; the value is read from standard input",
        details: """
            The value is every byte of standard input, exactly (no newline is removed). On a terminal,
            vault asks for it without echo instead (one line). Values never come from the command line,
            where other users could see them in ps. The limit is 1 MiB. An empty value (nothing on
            standard input, or nothing typed) is refused with exit 2 and nothing is stored, unless
            --allow-empty is given: an unset variable piped in is a mistake, not a token.
            An existing secret is replaced in place and keeps its creation time.
            With --refresh-command CMD and --expires-in D, NAME is a living token: when it has expired or
            expires within VAULT_REFRESH_SKEW seconds, a read runs CMD (sh -c) and stores what it prints,
            a token response JSON or a bare token that lives D. Standard input, if any, is the current
            token (valid for D, or until --expires-at); without one the first read runs CMD.
            """,
        options: [
            OptionSpec(
                .expiresIn, value: "DURATION",
                "expire after DURATION: seconds, or a number and s, m, h, d or w (25m, 12h, 30d)"),
            OptionSpec(.expiresAt, value: "TIME", "expire at an RFC 3339 time (2026-12-01T09:00:00Z)"),
            OptionSpec(
                .refreshCommand, value: "CMD",
                "on expiry, run CMD with sh -c for a new token (a bare token or token JSON; docs/tokens.md)"),
            OptionSpec(.allowEmpty, "store an empty value instead of refusing it"),
        ],
        run: { (invocation) throws(VaultError) in
            let operands = invocation.commandLine.operands + (invocation.commandLine.terminated ?? [])
            if operands.count > 1 {
                throw VaultError(
                    .usage,
                    "values are never taken from the command line (other users can read it in ps); pipe the value in: printf %s \"$VALUE\" | vault set NAME"
                )
            }
            let name = try invocation.name()
            if let command = invocation.value(.refreshCommand) {
                return try TokenCommands.setWithCommand(invocation, name: name, command: command)
            }
            let expires = try Expiry.parse(at: invocation.value(.expiresAt), in: invocation.value(.expiresIn))
            let value = try invocation.secretInput(
                prompt: "Value for \(name.account): ", what: "the value", limit: Vault.maximumValueSize)
            // The store first: a wrong backend or setting is named before the value is judged.
            let vault = try invocation.vault()
            // `printf %s "$TOKEN" | vault set NAME` with TOKEN unset: refused here, not found out
            // later when the empty token fails far away.
            if value.isEmpty, !invocation.flag(.allowEmpty) {
                throw VaultError(
                    .usage,
                    "the value of \(name.account) is empty; nothing was stored (give --allow-empty to store an empty value)"
                )
            }
            try vault.set(name, value: value, expires: expires)
            return ExitStatus.success
        })

    static let get = CommandSpec(
        name: "get", operands: "NAME", operandCompletion: .secretName,
        summary: "print a secret's value",
        details: """
            Writes the exact bytes of the value to standard output. When standard output is a terminal
            and the value does not end with a newline, one is added for readability; otherwise nothing is
            added. An expired secret prints nothing and exits 3.
            """,
        options: [OptionSpec(.allowExpired, "print the value even if the secret has expired")],
        run: { (invocation) throws(VaultError) in
            let name = try invocation.name()
            let record = try invocation.vault().get(name, allowExpired: invocation.flag(.allowExpired))
            try StandardIO.write(record.value, to: 1)
            if StandardIO.isTerminal(1), record.value.last != 0x0A { try StandardIO.write([0x0A], to: 1) }
            return ExitStatus.success
        })

    static let rm = CommandSpec(
        name: "rm", operands: "NAME", operandCompletion: .secretName,
        summary: "delete a secret",
        details: "Deletes the secret. Exits 1 if there is no secret by that name.",
        options: [],
        run: { (invocation) throws(VaultError) in
            try invocation.vault().remove(try invocation.name())
            return ExitStatus.success
        })
}

extension Invocation {
    /// Every byte of standard input, or, when it is a terminal, one line typed there without echo
    /// after `prompt`: how a secret reaches vault, never through the command line.
    func secretInput(prompt: String, what: String, limit: Int, tooLarge: String? = nil) throws(VaultError)
        -> SecureBytes
    {
        guard StandardIO.isTerminal(0) else {
            guard let tooLarge else { return try StandardIO.readAll(limit: limit) }
            return try StandardIO.readAll(limit: limit, tooLarge: tooLarge)
        }
        guard let typed = try Terminal.ask(prompt, allowed: factory.allowsPrompts) else {
            throw VaultError(.usage, "no terminal to ask for \(what) on; pipe \(what) in on standard input")
        }
        return typed
    }
}
