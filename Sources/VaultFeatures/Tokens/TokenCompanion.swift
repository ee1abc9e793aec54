public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// What vault keeps beside a living token so that it can mint the next one.
///
/// The access token itself is the stored value of its secret, so that any tool reading the item
/// (secret-tool, python keyring, an older vault) gets the current token. Everything else lives in a
/// companion secret that vault owns: the same service, the account prefixed with
/// ``TokenCompanion/reservedPrefix``. `ls`, `export` and `exec --all` never show companions; `rm`
/// deletes one with its token; `set` without `--refresh-command` drops it.
public struct TokenCompanion: Equatable, Sendable {
    /// How the next token is obtained.
    public enum Source: Equatable, Sendable {
        /// An OAuth 2.0 refresh (RFC 6749 section 6) at `tokenURL`.
        case oauth(OAuthClientConfiguration)
        /// A shell command that prints a token response or a bare token.
        case command(String)
    }

    public var source: Source
    /// The refresh token (OAuth only); `nil` when the server gave none.
    public var refreshToken: SecureBytes?
    /// The lifetime of the last token, in seconds: from `expires_in`, else `--expires-in`.
    public var lifetime: Int64?

    public init(source: Source, refreshToken: SecureBytes? = nil, lifetime: Int64?) {
        self.source = source
        self.refreshToken = refreshToken
        self.lifetime = lifetime
    }

    /// Accounts that start with this are companions, reserved for vault.
    public static let reservedPrefix = ".vault-token/"

    /// Whether `name` is a companion (and so hidden from listings).
    public static func isCompanion(_ name: SecretName) -> Bool { name.account.hasPrefix(reservedPrefix) }

    /// The companion's name for the token `name`.
    public static func name(for name: SecretName) throws(VaultError) -> SecretName {
        do {
            return try SecretName(service: name.service, account: reservedPrefix + name.account)
        } catch {
            throw VaultError(
                .usage,
                "'\(name.account)' is too long for a refreshable token (its companion needs \(reservedPrefix.utf8.count) more bytes)"
            )
        }
    }

    /// The token `companion` belongs to.
    static func token(of companion: SecretName) -> SecretName {
        SecretName(unchecked: companion.service, account: String(companion.account.dropFirst(reservedPrefix.count)))
    }

    /// Whether vault can mint a new token: a command, or OAuth with a refresh token.
    public var canRefresh: Bool {
        if case .command = source { return true }
        return refreshToken != nil
    }
}

/// An OAuth 2.0 client as vault uses it for refreshes.
public struct OAuthClientConfiguration: Equatable, Sendable {
    public var tokenURL: String
    public var clientID: String
    /// The vault name (same service) of the client secret of a confidential client.
    public var clientSecretName: String?
    public var scope: String?

    public init(tokenURL: String, clientID: String, clientSecretName: String? = nil, scope: String? = nil) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecretName = clientSecretName
        self.scope = scope
    }
}

extension TokenCompanion {
    /// The companion's stored form, one JSON object:
    /// `{"kind":"oauth","token_url","client_id","client_secret_name","scope","refresh_token","lifetime"}`
    /// or `{"kind":"command","command","lifetime"}`; absent values are left out.
    func encoded() -> SecureBytes {
        var object = JSONObjectWriter(capacity: 256 + 6 * Self.textBytes(source) + 6 * (refreshToken?.count ?? 0))
        switch source {
        case .oauth(let client):
            object.string("kind", "oauth".utf8)
            object.string("token_url", client.tokenURL.utf8)
            object.string("client_id", client.clientID.utf8)
            if let name = client.clientSecretName { object.string("client_secret_name", name.utf8) }
            if let scope = client.scope { object.string("scope", scope.utf8) }
            refreshToken?.withUnsafeBytes { object.string("refresh_token", $0) }
        case .command(let command):
            object.string("kind", "command".utf8)
            object.string("command", command.utf8)
        }
        if let lifetime { object.number("lifetime", lifetime) }
        return object.finish()
    }

    /// The bytes of the source's text fields.
    private static func textBytes(_ source: Source) -> Int {
        switch source {
        case .oauth(let client):
            client.tokenURL.utf8.count + client.clientID.utf8.count + (client.clientSecretName?.utf8.count ?? 0)
                + (client.scope?.utf8.count ?? 0)
        case .command(let command): command.utf8.count
        }
    }

    /// Reads the stored form back; a companion vault cannot read is reported as damaged.
    init(decoding bytes: [UInt8], name: SecretName) throws(VaultError) {
        try self.init(decoding: SecureBytes(bytes), name: name)
    }

    /// Reads the stored form back where it lies; the parsed tree's strings (the refresh token)
    /// are zeroed after.
    init(decoding bytes: SecureBytes, name: SecretName) throws(VaultError) {
        let damaged = VaultError(
            .damaged, "the refresh settings of '\(name.account)' are damaged", remedy: .storeTokenAgain)
        guard let document = bytes.withUnsafeBytes({ try? JSONValue.parse($0) }) else { throw damaged }
        defer { document.wipeStrings() }
        guard case .object(let members) = document else { throw damaged }
        var text: [String: String] = [:]
        var refreshToken: SecureBytes?
        var lifetime: Int64?
        for member in members {
            switch (member.key, member.value) {
            case ("refresh_token", .string(let bytes)): refreshToken = SecureBytes(bytes)
            case ("lifetime", .number(let digits)):
                guard let seconds = Int64(digits), seconds >= 0 else { throw damaged }
                lifetime = seconds
            case (let key, .string(let bytes)):
                guard let value = String(validating: bytes, as: UTF8.self) else { throw damaged }
                text[key] = value
            default: throw damaged
            }
        }
        switch text["kind"] {
        case "oauth":
            guard let tokenURL = text["token_url"], let clientID = text["client_id"] else { throw damaged }
            let client = OAuthClientConfiguration(
                tokenURL: tokenURL, clientID: clientID, clientSecretName: text["client_secret_name"],
                scope: text["scope"])
            self.init(source: .oauth(client), refreshToken: refreshToken, lifetime: lifetime)
        case "command":
            guard let command = text["command"] else { throw damaged }
            self.init(source: .command(command), lifetime: lifetime)
        default:
            throw damaged
        }
    }
}

/// What `vault show` tells about a living token: never a token.
public struct TokenSummary: Hashable, Sendable {
    /// `oauth` or `command`.
    public var kind: String
    public var tokenURL: String?
    public var clientID: String?
    public var clientSecretName: String?
    public var scope: String?
    public var command: String?
    public var holdsRefreshToken: Bool
    public var refreshable: Bool
    public var lifetime: Int64?
}

extension TokenCompanion {
    public var summary: TokenSummary {
        switch source {
        case .oauth(let client):
            return TokenSummary(
                kind: "oauth", tokenURL: client.tokenURL, clientID: client.clientID,
                clientSecretName: client.clientSecretName, scope: client.scope, holdsRefreshToken: refreshToken != nil,
                refreshable: canRefresh, lifetime: lifetime)
        case .command(let command):
            return TokenSummary(
                kind: "command", command: command, holdsRefreshToken: false, refreshable: true, lifetime: lifetime)
        }
    }
}
