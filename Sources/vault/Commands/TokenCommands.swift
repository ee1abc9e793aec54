import VaultCore
import VaultFeatures
import VaultSecureBytes
import VaultStorage

/// Living tokens on the command line: `set --refresh-command` and `vault oauth` (docs/tokens.md).
enum TokenCommands {
    /// `vault set NAME --expires-in D --refresh-command CMD`: standard input, if any, is the
    /// current token, valid for D or until `--expires-at`; without one the token is stored as
    /// already expired, so the first read runs CMD.
    static func setWithCommand(_ invocation: Invocation, name: SecretName, command: String) throws(VaultError) -> Int32
    {
        guard let duration = invocation.value(.expiresIn) else {
            throw VaultError(
                .usage, "--refresh-command needs --expires-in DURATION, the lifetime of each token it prints")
        }
        guard !command.isEmpty else { throw VaultError(.usage, "--refresh-command needs a command") }
        let lifetime = try Expiry.seconds(duration)
        let now = Timestamp.now()
        let current = try Expiry.parse(at: invocation.value(.expiresAt), in: nil, now: now)
        let read = StandardIO.isTerminal(0) ? SecureBytes() : try StandardIO.readAll(limit: Vault.maximumValueSize)
        let vault = try invocation.vault()
        let companion = TokenCompanion(source: .command(command), lifetime: lifetime)
        // Approved first: this machine ran the command line, so it may run the command.
        try vault.approveRefresh(of: name, companion: companion)
        try vault.setLiving(
            name, token: read, expires: read.isEmpty ? now : current ?? now.adding(seconds: lifetime),
            companion: companion)
        return ExitStatus.success
    }

    /// `vault oauth import NAME`: an RFC 6749 section 5.1 token response on standard input.
    static func importResponse(_ invocation: Invocation, name: SecretName) throws(VaultError) -> Int32 {
        let client = try clientConfiguration(invocation)
        guard !StandardIO.isTerminal(0) else {
            throw VaultError(.usage, "pipe the token response (RFC 6749 JSON) in on standard input")
        }
        let input = try StandardIO.readAll(limit: Vault.maximumValueSize)
        let response = try input.withTemporaryArray { (json) throws(VaultError) in
            try TokenResponse(json: json, origin: "the token response on standard input")
        }
        try store(response, client: client, name: name, in: try invocation.vault())
        return ExitStatus.success
    }

    /// `vault oauth login NAME`: the device authorization grant (RFC 8628). The verification URI
    /// and the user code go to stderr; the token is stored only once the login is approved.
    static func deviceLogin(_ invocation: Invocation, name: SecretName) throws(VaultError) -> Int32 {
        let client = try clientConfiguration(invocation)
        guard let deviceURL = invocation.value(.deviceURL), !deviceURL.isEmpty else {
            throw VaultError(.usage, "give the device authorization endpoint: --device-url URL")
        }
        let vault = try invocation.vault()  // a store that cannot be opened fails before the login
        let login = try invocation.factory.deviceLogin(client, deviceURL: deviceURL)
        let authorization = try login.start()
        // Both come from the server and were made printable (no control characters).
        var text = "To log in, open \(authorization.verificationURI)\nand enter the code \(authorization.userCode)"
        if let complete = authorization.verificationURIComplete { text += " (or open \(complete))" }
        try StandardIO.write((text + "\nWaiting up to \(authorization.expiresIn) s for approval...\n").utf8, to: 2)
        let response = try login.finish(authorization)
        try store(response, client: client, name: name, in: vault)
        try StandardIO.write("Logged in: '\(name.account)' is stored and refreshes by itself.\n".utf8, to: 2)
        return ExitStatus.success
    }

    /// Stores a token response as a living OAuth token.
    static func store(
        _ response: TokenResponse, client: OAuthClientConfiguration, name: SecretName, in vault: Vault
    ) throws(VaultError) {
        var client = client
        if let scope = response.scope { client.scope = scope }
        let now = Timestamp.now()
        let companion = TokenCompanion(
            source: .oauth(client), refreshToken: response.refreshToken, lifetime: response.expiresIn)
        // Approved first: this machine was told where refreshes go on its own command line.
        try vault.approveRefresh(of: name, companion: companion)
        try vault.setLiving(
            name, token: response.accessToken, expires: response.expiresIn.map { now.adding(seconds: $0) },
            companion: companion)
    }

    /// `--token-url`, `--client-id`, `--client-secret-name` and `--scope`.
    static func clientConfiguration(_ invocation: Invocation) throws(VaultError) -> OAuthClientConfiguration {
        guard let tokenURL = invocation.value(.tokenURL), !tokenURL.isEmpty else {
            throw VaultError(.usage, "give the token endpoint: --token-url URL")
        }
        guard let clientID = invocation.value(.clientID), !clientID.isEmpty else {
            throw VaultError(.usage, "give the OAuth client: --client-id ID")
        }
        if let secretName = invocation.value(.clientSecretName) {
            _ = try invocation.factory.name(secretName)
        }
        let approval = try invocation.factory.refreshApproval()
        try approval.checkURL(tokenURL, what: "token endpoint")
        if let deviceURL = invocation.value(.deviceURL), !deviceURL.isEmpty {
            try approval.checkURL(deviceURL, what: "device authorization endpoint")
        }
        return OAuthClientConfiguration(
            tokenURL: tokenURL, clientID: clientID, clientSecretName: invocation.value(.clientSecretName),
            scope: invocation.value(.scope))
    }
}

extension CommandSpec {
    static let oauth = CommandSpec(
        name: "oauth", operands: "login|import NAME", operandCompletion: .secretName,
        summary: "store an OAuth 2.0 token that vault refreshes by itself",
        details: """
            'vault oauth login NAME --device-url URL --token-url URL --client-id ID' logs in with the
            device authorization grant (RFC 8628): it prints a verification URI and a user code on
            standard error, polls the token endpoint while you approve in a browser (honouring the
            server's interval and slow_down), and stores the tokens once approved. Denied is exit 4 and an
            expired code exit 3; nothing is stored then.
            'vault oauth import NAME' reads a token response (RFC 6749 section 5.1 JSON: access_token,
            expires_in, refresh_token, scope) on standard input and stores the access token as NAME, with
            the refresh token and the client in a companion that vault owns. From then on every read of NAME
            (get, exec) refreshes the access token when it has expired or expires within
            VAULT_REFRESH_SKEW seconds (default 60). A confidential client's secret is itself a secret in
            the vault, named by --client-secret-name; it is never on the command line. See docs/tokens.md.
            """,
        options: [
            OptionSpec(.deviceURL, value: "URL", "login: the device authorization endpoint"),
            OptionSpec(.tokenURL, value: "URL", "the token endpoint refreshes are sent to"),
            OptionSpec(.clientID, value: "ID", "the OAuth client ID"),
            OptionSpec(
                .clientSecretName, value: "NAME",
                "the vault secret that holds the client secret (confidential clients)"),
            OptionSpec(.scope, value: "SCOPE", "the scope, when the token response does not say"),
        ],
        run: { (invocation) throws(VaultError) in
            let operands = try invocation.operands(2...2)
            let name = try invocation.factory.name(operands[1])
            switch operands[0] {
            case "login": return try TokenCommands.deviceLogin(invocation, name: name)
            case "import": return try TokenCommands.importResponse(invocation, name: name)
            default:
                throw VaultError(
                    .usage, "unknown 'vault oauth' action '\(operands[0])'; use: vault oauth login|import NAME")
            }
        })
}
