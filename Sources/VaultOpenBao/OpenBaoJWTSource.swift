import Crypto
import VaultSecureBytes
import VaultStorage
import VaultSystem

/// Getting the JWT: from a variable, a file, or the GitHub/Forgejo Actions id-token endpoint.
///
/// The JWT and the Actions request token are credentials: no message quotes them, and messages
/// name the endpoint by its origin only (its query carries a token-like value).
extension OpenBaoJWTSource {
    /// The JWT when it is at hand without asking anyone (a variable or a file), else nil (Actions:
    /// the endpoint is asked only when a login is needed, see ``jwt(configuration:deadline:)``).
    func localJWT() throws(VaultError) -> SecureBytes? {
        switch self {
        case .value(let jwt, let variable):
            try Self.checkShape(jwt, origin: variable)
            return jwt
        case .file(let path, let variable):
            // Not `readPrivate`: Kubernetes mounts the service account token 0644, and a JWT is
            // short-lived and bound to an audience, unlike an AppRole secret ID.
            let read: SecureBytes?
            do throws(VaultError) {
                read = try FileSystem.readRegularSecretFile(path, limit: Self.maxLength)
            } catch {
                // A JWT that cannot be read means no login, as a missing one does.
                throw VaultError(.cannotUnlock, "the JWT file (\(variable)): \(error.message)", errno: error.errno)
            }
            guard var jwt = read else {
                throw VaultError(.cannotUnlock, "the JWT file \(path) (\(variable)) does not exist")
            }
            while let last = jwt.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
                jwt.removeLast()
            }
            try Self.checkShape(jwt, origin: "\(variable) \(path)")
            return jwt
        case .actions:
            return nil
        }
    }

    /// The end of the token cache's file name: a digest of the JWT, or for Actions of the job's
    /// request token and the endpoint and audience it asks for (so a job finds its own login
    /// without asking the endpoint).
    func cacheKey(localJWT: SecureBytes?) -> String {
        Digest.hex(bytes: 16) { hasher in
            hasher.update(data: Array("vault openbao jwt cache\n".utf8))
            switch self {
            case .value, .file:
                localJWT?.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            case .actions(let url, let requestToken, let audience):
                hasher.update(data: Array("actions\n\(url)\n\(audience ?? "")\n".utf8))
                requestToken.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            }
        }
    }

    /// The JWT for a login: the local one, or one asked of the Actions endpoint.
    func jwt(configuration: HTTPClient.Configuration, deadline: Deadline) throws(VaultError) -> SecureBytes {
        guard case .actions(let url, let requestToken, let audience) = self else {
            return try localJWT() ?? SecureBytes()
        }
        return try Self.actionsIDToken(
            url: url, requestToken: requestToken, audience: audience, configuration: configuration, deadline: deadline)
    }

    /// Asks the Actions id-token endpoint for a JWT: `GET <url>&audience=<audience>` with
    /// `Authorization: bearer <request token>`; the JWT is the answer's `value`.
    ///
    /// Unreachable or broken: `.unavailable` (exit 5). A refused request token (401, 403):
    /// `.cannotUnlock` (exit 4). Proxies apply, but not `BAO_CACERT` (the endpoint is GitHub's or
    /// Forgejo's, not the OpenBao server), and redirects are not followed.
    static func actionsIDToken(
        url: String, requestToken: SecureBytes, audience: String?, configuration: HTTPClient.Configuration,
        deadline: Deadline
    ) throws(VaultError) -> SecureBytes {
        let origin = HTTPURL.origin(of: url)
        var target = url
        if let audience {
            // GitHub's URL already has a query (`?api-version=...`).
            target += (url.contains("?") ? "&" : "?") + "audience=" + HTTPForm.pathSegment(audience)
        }
        let client = HTTPClient(
            HTTPClient.Configuration(proxies: configuration.proxies, maxBodyLength: 1 << 20))
        let bearer = requestToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let request = HTTPRequest(
            method: "GET", url: target,
            headers: [("Authorization", "bearer " + bearer), ("Accept", "application/json")])
        let what = "the Actions id-token endpoint \(origin) (ACTIONS_ID_TOKEN_REQUEST_URL)"
        let response: HTTPResponse
        do {
            response = try client.send(request, deadline: deadline)
        } catch {
            // curl's reasons name a host and port; check anyway that no part of the URL past its
            // origin, nor the request token, slips into the line.
            // (Parts shorter than 8 bytes are no secret, and would match ordinary words.)
            var reason = error.reason
            let tail = String(url.dropFirst(origin.count))
            let query = tail.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            if [tail, query, bearer].contains(where: { $0.utf8.count >= 8 && reason.contains($0) }) {
                reason = "the request failed"
            }
            let code: VaultError.Code = error.kind == .request ? .usage : .unavailable
            throw VaultError(code, "cannot get an id token from \(what): \(reason)")
        }
        if response.status == 401 || response.status == 403 {
            throw VaultError(
                .cannotUnlock,
                "\(what) refused the request token (ACTIONS_ID_TOKEN_REQUEST_TOKEN, HTTP \(response.status)); the job needs 'permissions: id-token: write'"
            )
        }
        guard response.status == 200 else {
            throw VaultError(.unavailable, "\(what) answered HTTP \(response.status) instead of an id token")
        }
        guard let json = try? response.json(), var value = json["value"]?.stringBytes, !value.isEmpty else {
            throw VaultError(.unavailable, "\(what) answered without an id token (no 'value' in its JSON)")
        }
        let jwt = SecureBytes(taking: &value)
        try Self.checkShape(jwt, origin: what)
        return jwt
    }

    /// The most bytes a JWT may have (a service account token is about 1 KiB).
    static let maxLength = 64 << 10

    /// Refuses what is not a compact JWS (three base64url parts separated by dots), naming where
    /// it came from and never quoting it.
    static func checkShape(_ jwt: SecureBytes, origin: String) throws(VaultError) {
        let shaped = jwt.withUnsafeBytes { bytes -> Bool in
            var dots = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "."): dots += 1
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
                    continue
                default: return false
                }
            }
            return dots == 2 && bytes.count <= maxLength
        }
        guard shaped else {
            throw VaultError(
                .cannotUnlock, "\(origin) does not hold a JWT (three base64url parts separated by dots)")
        }
    }
}
