public import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// A successful token response (RFC 6749 section 5.1), or a bare token a refresh command printed.
/// The tokens are ``SecureBytes`` from the parse to the store: zeroed when the last copy goes.
public struct TokenResponse: Sendable {
    public var accessToken: SecureBytes
    /// `expires_in`: seconds from now, if the server said.
    public var expiresIn: Int64?
    /// A new refresh token, if the server rotated it (or issued one).
    public var refreshToken: SecureBytes?
    public var scope: String?

    public init(
        accessToken: SecureBytes, expiresIn: Int64? = nil, refreshToken: SecureBytes? = nil, scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
    }

    /// Parses an RFC 6749 section 5.1 JSON object. `expires_in` may be a number or a string of
    /// digits (some servers quote it). Errors name what is wrong, never a token.
    public init(json bytes: [UInt8], origin: String) throws(VaultError) {
        let parsed = bytes.withUnsafeBytes { bytes in
            Result { () throws(VaultError) in try Self(json: bytes, origin: origin) }
        }
        self = try parsed.get()
    }

    /// Parses a token endpoint's answer where it lies (an HTTP body in ``SecureBytes``): the
    /// tokens go straight into ``SecureBytes``, and the parsed tree's strings are zeroed after.
    init(json body: SecureBytes, origin: String) throws(VaultError) {
        let parsed = body.withUnsafeBytes { bytes in
            Result { () throws(VaultError) in try Self(json: bytes, origin: origin) }
        }
        self = try parsed.get()
    }

    private init(json bytes: UnsafeRawBufferPointer, origin: String) throws(VaultError) {
        func fail(_ reason: String) -> VaultError { VaultError(.usage, "\(origin): \(reason)") }
        guard let document = try? JSONValue.parse(bytes) else {
            throw fail("not a JSON object (expected an RFC 6749 token response with access_token)")
        }
        defer { document.wipeStrings() }
        guard case .object(let members) = document else {
            throw fail("not a JSON object (expected an RFC 6749 token response with access_token)")
        }
        var accessToken: SecureBytes?
        var expiresIn: Int64?
        var refreshToken: SecureBytes?
        var scope: String?
        for member in members {
            switch (member.key, member.value) {
            case ("access_token", .string(let bytes)): accessToken = SecureBytes(bytes)
            case ("refresh_token", .string(let bytes)): refreshToken = SecureBytes(bytes)
            case ("scope", .string(let bytes)): scope = String(decoding: bytes, as: UTF8.self)
            case ("expires_in", .number(let digits)):
                expiresIn = try Self.seconds(digits, fail)
            case ("expires_in", .string(let bytes)):
                expiresIn = try Self.seconds(String(decoding: bytes, as: UTF8.self), fail)
            case ("access_token", _), ("refresh_token", _):
                throw fail("\(member.key) is not a string")
            default: continue  // token_type, id_token and extensions are not vault's business
            }
        }
        guard let accessToken, !accessToken.isEmpty else { throw fail("no access_token") }
        self.init(accessToken: accessToken, expiresIn: expiresIn, refreshToken: refreshToken, scope: scope)
    }

    private static func seconds(_ text: String, _ fail: (String) -> VaultError) throws(VaultError) -> Int64 {
        // A fraction is cut, not rounded up: vault refreshes a little early rather than late.
        let whole = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
        guard let seconds = Int64(whole), seconds >= 0, seconds <= 100 * 366 * 86_400 else {
            throw fail("expires_in is not a number of seconds")
        }
        return seconds
    }

    /// What a refresh command printed: a token response when it starts with `{`, else a bare
    /// token with the white space around it removed.
    public init(commandOutput bytes: [UInt8], origin: String) throws(VaultError) {
        try self.init(commandOutput: SecureBytes(bytes), origin: origin)
    }

    /// What a refresh command printed, read where it lies (see ``init(commandOutput:origin:)``).
    public init(commandOutput bytes: SecureBytes, origin: String) throws(VaultError) {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = bytes.firstIndex(where: { !space.contains($0) }),
            let last = bytes.lastIndex(where: { !space.contains($0) })
        else {
            throw VaultError(.unavailable, "\(origin) printed no token")
        }
        if bytes[first] == UInt8(ascii: "{") {
            do {
                try self.init(json: bytes, origin: origin)
            } catch {
                throw VaultError(.unavailable, error.message)
            }
        } else {
            self.init(accessToken: SecureBytes(bytes[first...last]))
        }
    }
}

/// An error response (RFC 6749 section 5.2): `error` and its optional description.
public struct TokenErrorResponse: Sendable {
    public var error: String
    public var description: String?

    /// Parses `{"error": "...", "error_description": "..."}`; nil if the body is not one.
    public init?(json bytes: [UInt8]) {
        guard case .object(let members)? = try? JSONValue.parse(bytes) else { return nil }
        var error: String?
        var description: String?
        for member in members {
            guard case .string(let text) = member.value else { continue }
            if member.key == "error" { error = String(decoding: text, as: UTF8.self) }
            if member.key == "error_description" { description = String(decoding: text, as: UTF8.self) }
        }
        guard let error else { return nil }
        self.error = error
        self.description = description
    }
}
