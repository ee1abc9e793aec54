import Crypto
import VaultSecureBytes
import VaultStorage
import VaultSystem

/// A token obtained by logging in, and until when it may be used.
struct OpenBaoLoginResult {
    var token: SecureBytes
    var expires: Timestamp
}

/// Logging in to an auth method that returns a token: AppRole and JWT (docs/openbao.md,
/// "Logging in"). The request goes to the cluster without a token (``post``); the answer's
/// refusals become one line each, which names the method, the role and where the credential
/// came from, and never quotes the credential.
struct OpenBaoLogin {
    /// Sends a `POST` of `body` to `path` (below `/v1/`) on the cluster, without a token.
    let post: (_ path: String, _ body: JSONValue) throws(VaultError) -> OpenBaoClient.Answer
    /// The OpenBao client's configuration: its proxies also serve the Actions id-token endpoint.
    let http: HTTPClient.Configuration
    let deadline: Deadline

    /// `auth/<mount>/login`, each segment of the mount percent-encoded.
    static func loginPath(mount: String) -> String {
        "auth/" + mount.split(separator: "/").map { HTTPForm.pathSegment(String($0)) }.joined(separator: "/")
            + "/login"
    }

    // MARK: AppRole

    func appRole(roleID: String, secretID: SecureBytes, mount: String) throws(VaultError) -> OpenBaoLoginResult {
        // The request body is JSON text built from Strings, which nothing can wipe.
        let secret = secretID.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let body = JSONValue.object(strings: [("role_id", roleID), ("secret_id", secret)])
        let answer = try post(Self.loginPath(mount: mount), body)
        if let result = Self.result(of: answer) { return result }
        if answer.status == 400 || answer.status == 403 {
            throw VaultError(
                .cannotUnlock,
                "\(answer.server) refused the AppRole login at auth/\(mount) (BAO_ROLE_ID, BAO_SECRET_ID): \(answer.errors)"
            )
        }
        throw Self.unexpected(answer, doing: "the AppRole login at auth/\(mount)")
    }

    // MARK: JWT

    /// Logs in with `jwt`, already read from its variable or file, or else with the source's
    /// (asked of the Actions endpoint).
    func jwt(_ login: OpenBaoJWTLogin, jwt given: SecureBytes?) throws(VaultError) -> OpenBaoLoginResult {
        let jwt: SecureBytes
        if let given {
            jwt = given
        } else {
            jwt = try login.source.jwt(configuration: http, deadline: deadline)
        }
        var members: [(String, String)] = []
        if let role = login.role { members.append(("role", role)) }
        // The body is a String-based JSON value, as every request body of the client is; the
        // JWT is copied there for the request only.
        members.append(("jwt", jwt.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }))
        let answer = try post(Self.loginPath(mount: login.mount), JSONValue.object(strings: members))
        if let result = Self.result(of: answer) { return result }
        if answer.status == 400 || answer.status == 403 {
            throw Self.jwtRefusal(answer, login: login, jwt: jwt)
        }
        throw Self.unexpected(answer, doing: "the JWT login at auth/\(login.mount)")
    }

    /// One line for a refused JWT login, from what OpenBao's `jwt` method answers (400 with
    /// `errors`; 403 when nothing is mounted there): which check failed, and what to look at as
    /// the remedy.
    static func jwtRefusal(_ answer: OpenBaoClient.Answer, login: OpenBaoJWTLogin, jwt: SecureBytes) -> VaultError {
        let role = login.role.map { "role \($0)" } ?? "the default role"
        let start =
            "\(answer.server) refused the JWT login at auth/\(login.mount) (\(role), JWT from \(login.source.origin))"
        let errors = scrubbed(answer.errors, of: jwt)
        let lower = errors.lowercased()
        let reason: String
        var remedy: VaultError.Remedy?
        if answer.status == 403 {
            reason = "permission denied; is a jwt auth method enabled at auth/\(login.mount) (BAO_JWT_MOUNT)?"
        } else if lower.contains("expired") {
            reason = "the JWT has expired"
            remedy = .freshJWT
        } else if lower.contains("not yet valid") {
            reason = "the JWT is not valid yet (nbf or iat in the future)"
            remedy = .check("the clocks")
        } else if lower.contains("audience") {
            var fromActions = false
            if case .actions = login.source { fromActions = true }
            reason = "the JWT's audience (aud) is not one of the role's bound_audiences"
            remedy = .jwtAudience(fromActions: fromActions)
        } else if lower.contains("issuer") {
            reason = "the JWT's issuer (iss) is not the bound_issuer of auth/\(login.mount)/config"
        } else if lower.contains("signature") || lower.contains("jws") || lower.contains("malformed") {
            reason = "the JWT's signature does not verify with the keys of auth/\(login.mount)/config"
        } else if lower.contains("could not be found") {
            reason = "no such role at auth/\(login.mount) (BAO_JWT_ROLE)"
        } else if lower.contains("missing role") {
            reason = "no role given, and auth/\(login.mount)/config names no default_role"
            remedy = .setVariable(oneOf: ["BAO_JWT_ROLE"])
        } else if lower.contains("claim") {
            reason = "the role refused the JWT's claims: \(errors)"
        } else {
            reason = errors.isEmpty ? "HTTP \(answer.status)" : errors
        }
        return VaultError(.cannotUnlock, "\(start): \(reason)", remedy: remedy)
    }

    /// The server's text, unless it quotes any part of the JWT: then a neutral phrase.
    static func scrubbed(_ text: String, of jwt: SecureBytes) -> String {
        let quotes = jwt.withUnsafeBytes { bytes -> Bool in
            for part in bytes.split(separator: UInt8(ascii: ".")) where part.count >= 8 {
                if text.utf8.firstRange(of: part) != nil { return true }
            }
            return false
        }
        return quotes ? "(the server's answer quoted the JWT; not shown)" : text
    }

    // MARK: Answers

    /// The token and its expiry from a successful login's `auth`, or nil.
    static func result(of answer: OpenBaoClient.Answer) -> OpenBaoLoginResult? {
        guard answer.status == 200, let auth = answer.json?["auth"], var token = auth["client_token"]?.stringBytes,
            !token.isEmpty
        else { return nil }
        let lease = Int64(auth["lease_duration"]?.integer ?? 0)
        // A lease of 0 means the token does not expire: keep it for a day at most.
        let expires = Timestamp.now().adding(seconds: lease > 0 ? lease : 86_400)
        return OpenBaoLoginResult(token: SecureBytes(taking: &token), expires: expires)
    }

    /// An error for an answer that neither succeeded nor refused (the client's one for all).
    static func unexpected(_ answer: OpenBaoClient.Answer, doing what: String) -> VaultError {
        let detail = answer.errors.isEmpty ? "" : ": \(answer.errors)"
        return VaultError(.unavailable, "\(answer.server) answered HTTP \(answer.status) to \(what)\(detail)")
    }
}

extension OpenBaoSecretID {
    /// The secret ID: the variable's value, or the file's contents without trailing white space.
    func read() throws(VaultError) -> SecureBytes {
        switch self {
        case .value(let value): return SecureBytes(value.utf8)
        case .file(let path):
            var bytes = try FileSystem.readPrivate(path, what: "AppRole secret ID file (BAO_SECRET_ID_FILE)")
            while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
            return bytes
        }
    }

    /// The end of the login cache's file name: a digest of the secret ID, so that a job with
    /// another (or a revoked, or a wrong) secret ID never uses a token another job logged in
    /// for, as the JWT cache is keyed by the JWT (``OpenBaoJWTSource/cacheKey(localJWT:)``).
    static func cacheKey(_ secretID: SecureBytes) -> String {
        Digest.hex(bytes: 16) { hasher in
            hasher.update(data: Array("vault openbao approle cache\n".utf8))
            secretID.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
    }
}
