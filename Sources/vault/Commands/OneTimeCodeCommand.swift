import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

/// `vault otp NAME` and `vault otp add NAME`: one-time codes from otpauth:// seeds.
extension CommandSpec {
    static let otp = CommandSpec(
        name: "otp", operands: "NAME|add NAME", operandCompletion: .secretName,
        summary: "print a one-time code (TOTP or HOTP); 'otp add' stores an otpauth:// seed",
        details: """
            'vault otp add NAME' reads an otpauth://totp/... or otpauth://hotp/... URI (as a QR code of
            Google Authenticator's key URI format holds it) from standard input, or asks for it on a
            terminal without echo, and stores it as NAME, a secret of the kind totp or hotp. The URI is
            never taken from the command line, where other users can read it in ps (exit 2). It needs
            secret (base32, either case, padding optional), and may give algorithm (SHA1, SHA256 or
            SHA512; default SHA1), digits (6 to 8; default 6), period (totp: seconds, default 30),
            counter (hotp: the next counter, required) and issuer. A URI that is not well formed is exit
            2, and nothing is stored.
            'vault otp NAME' prints the current code and a newline, as oathtool does. totp: a code with
            fewer than --min-valid seconds left (default 5, at most half the period) is never printed;
            vault waits for the next period and prints its code. hotp: each call uses the next counter
            once, also across concurrent processes (and machines sharing an OpenBao store), and stores
            the counter before it prints the code.
            'vault get' refuses these secrets (exit 2), so that a seed is never printed by accident;
            'show' and 'ls --json' say what the codes are; 'export --format json' keeps the URI and its
            kind. In 'inject' templates {{ vault-otp://SERVICE/NAME }}, and in 'exec --env-file' files
            VAR=vault-otp://SERVICE/NAME, stand for a code. For aws-vault: mfa_process = vault otp aws-mfa.
            """,
        options: [
            OptionSpec(
                .minValid, value: "SECONDS",
                "totp: wait for the next code rather than print one with fewer seconds left (default 5)")
        ],
        run: { (invocation) throws(VaultError) in
            let operands = invocation.commandLine.operands + (invocation.commandLine.terminated ?? [])
            if operands.contains(where: { $0.lowercased().hasPrefix("otpauth:") }) {
                throw VaultError(
                    .usage,
                    "an otpauth:// URI is never taken from the command line (other users can read it in ps); "
                        + "pipe it in: vault otp add NAME < uri.txt")
            }
            if operands.first == "add" {
                return try OneTimeCodeCommand.add(invocation, operands: Array(operands.dropFirst()))
            }
            return try OneTimeCodeCommand.print(invocation)
        })
}

enum OneTimeCodeCommand {
    /// `vault otp add NAME`: the URI on standard input, or typed at a terminal without echo.
    static func add(_ invocation: Invocation, operands: [String]) throws(VaultError) -> Int32 {
        guard operands.count == 1 else {
            throw VaultError(.usage, "'vault otp add' takes one NAME, got \(operands.count); usage: vault otp add NAME")
        }
        if invocation.value(.minValid) != nil {
            throw VaultError(.usage, "--min-valid is for printing a code, not for 'vault otp add'")
        }
        let name = try invocation.factory.name(operands[0])
        let uri = try invocation.secretInput(
            prompt: "otpauth URI for \(name.account): ", what: "the otpauth:// URI", limit: 4096,
            tooLarge: "the otpauth URI on standard input is over 4 KiB")
        // The URI first: a bad one is named before a store is opened (and nothing is stored).
        do {
            _ = try OneTimeCodeSeed(parsing: uri)
        } catch {
            throw error.withMessage(error.message + "; nothing was stored")
        }
        try invocation.vault().addOneTimeCode(name, uri: uri)
        return ExitStatus.success
    }

    /// `vault otp NAME [--min-valid SECONDS]`: the code and a newline.
    static func print(_ invocation: Invocation) throws(VaultError) -> Int32 {
        let name = try invocation.name()
        var minValid = Vault.defaultMinimumValidity
        if let text = invocation.value(.minValid) {
            // The library checks the real bound (half the code's period); this one only keeps the
            // number small.
            guard let seconds = DurationText.seconds(text, in: 0...99_999) else {
                throw VaultError(
                    .usage, "--min-valid is '\(text)'; give a duration from 0 to half the code's period, like 5 or 10s")
            }
            minValid = Int(seconds)
        }
        var code = try invocation.vault().oneTimeCode(name, minValid: minValid)
        code.append(0x0A)
        try StandardIO.write(code, to: 1)
        return ExitStatus.success
    }
}
