import VaultAge

#if canImport(Glibc)
    import Glibc
#endif

/// Talks to an OpenBao or HashiCorp Vault cluster over its HTTP API (`/v1/...`), HA-aware.
///
/// - Every request carries the token in `X-Vault-Token`; the token comes from
///   ``OpenBaoCredentials`` (an AppRole or JWT login is made once and cached, ``OpenBaoLogin``).
/// - A node that cannot be connected to is skipped for the next address; a node that is
///   sealed or a standby without an active node is skipped too.
/// - A 307/308 redirect (a standby pointing at the active node) is followed only to one of the
///   configured addresses, so the token never goes to a host the user did not name.
/// - A write asks `sys/leader` first and goes to the active node (``preferActiveNode(deadline:)``):
///   an OpenBao standby answers from a copy of the data that lags the active node's.
/// - One deadline (`VAULT_TIMEOUT`) bounds everything one store operation does.
/// - Messages name the server and never the token or a request body.
final class OpenBaoClient {
    let settings: OpenBaoSettings
    private let http: HTTPClient
    private var token: SecureBytes?
    /// The login cache `token` came from, if it did: a refusal then means log in again.
    private var tokenCache: OpenBaoTokenCache?
    /// The node that answered last: tried first next time.
    private var preferred = 0

    init(settings: OpenBaoSettings) {
        self.settings = settings
        self.http = HTTPClient(settings.http)
    }

    /// The servers, for messages: `https://a:8200` or `https://a:8200, https://b:8200`.
    var serverList: String { settings.addresses.joined(separator: ", ") }

    /// An answer from the server: its status and its JSON body (nil when empty).
    struct Answer {
        var status: Int
        var json: JSONValue?
        var server: String

        /// The server's `errors` texts, joined.
        var errors: String {
            guard case .array(let items)? = json?["errors"] else { return "" }
            return items.compactMap(\.string).joined(separator: "; ")
        }
    }

    /// A deadline for one store operation.
    func deadline() -> Deadline { Deadline(seconds: settings.timeout) }

    /// Sends an authenticated request for `path` (below `/v1/`, already percent-encoded) and
    /// returns the answer. 403 (unless `refusalIsAnswer`) and sealed answers become errors; other
    /// statuses are returned.
    func send(
        _ method: String, _ path: String, body: JSONValue? = nil, contentType: String = "application/json",
        refusalIsAnswer: Bool = false, deadline: Deadline
    ) throws(VaultError) -> Answer {
        // The header path takes Strings: the token is copied out of its SecureBytes per request.
        let token = String(decoding: try currentToken(deadline: deadline), as: UTF8.self)
        var answer = try sendToCluster(
            method, path, body: body, contentType: contentType, token: token, deadline: deadline)
        // A KV v2 mount just enabled, or just taken over by a new active node, refuses requests
        // until it has checked for unversioned data; the server says it resumes shortly.
        while answer.isUpgrading {
            guard deadline.remainingMilliseconds > Self.upgradePollMilliseconds else {
                throw VaultError(
                    .unavailable,
                    "\(answer.server): the KV mount \(settings.mount) is still upgrading to versioned data; try again shortly"
                )
            }
            usleep(UInt32(Self.upgradePollMilliseconds * 1000))
            answer = try sendToCluster(
                method, path, body: body, contentType: contentType, token: token, deadline: deadline)
        }
        guard answer.status == 403, !refusalIsAnswer else { return answer }
        if let cache = tokenCache {
            // The cached login token was revoked or its policies changed: log in once more.
            cache.remove()
            self.token = nil
            self.tokenCache = nil
            let fresh = String(decoding: try currentToken(deadline: deadline), as: UTF8.self)
            let retried = try sendToCluster(
                method, path, body: body, contentType: contentType, token: fresh, deadline: deadline)
            guard retried.status == 403 else { return retried }
            throw permissionDenied(retried)
        }
        throw permissionDenied(answer)
    }

    private func permissionDenied(_ answer: Answer) -> VaultError {
        VaultError(
            .cannotUnlock,
            "\(answer.server) refused the token from \(credentialOrigin) (permission denied); check the token and its policy (docs/openbao.md)"
        )
    }

    private var credentialOrigin: String {
        switch settings.credentials {
        case .token(_, let origin): origin
        case .appRole(_, _, let mount, _): "the AppRole login at auth/\(mount)"
        case .jwt(let login): "the JWT login at auth/\(login.mount)"
        }
    }

    // MARK: Token

    /// Whether the token in use came from the login cache (for `vault doctor`).
    var usesCachedToken: Bool { tokenCache != nil }

    private func currentToken(deadline: Deadline) throws(VaultError) -> SecureBytes {
        if let token { return token }
        let login = OpenBaoLogin(
            post: { (path, body) throws(VaultError) in
                try self.sendToCluster(
                    "POST", path, body: body, contentType: "application/json", token: nil, deadline: deadline)
            }, http: settings.http, deadline: deadline)
        switch settings.credentials {
        case .token(let value, _):
            token = value
            return value
        case .appRole(let roleID, let secretID, let mount, let cacheFile):
            return try cachedOrLogin(cacheFile.map { OpenBaoTokenCache(path: $0) }) { () throws(VaultError) in
                try login.appRole(roleID: roleID, secretID: secretID, mount: mount)
            }
        case .jwt(let jwtLogin):
            // A JWT at hand is read first: the cache entry is the one for this very JWT.
            let jwt = try jwtLogin.source.localJWT()
            let cache = jwtLogin.cachePrefix.map {
                OpenBaoTokenCache(path: $0 + "-" + jwtLogin.source.cacheKey(localJWT: jwt))
            }
            return try cachedOrLogin(cache) { () throws(VaultError) in
                let result = try login.jwt(jwtLogin, jwt: jwt)
                if let prefix = jwtLogin.cachePrefix { OpenBaoTokenCache.removeUnusable(startingWith: prefix + "-") }
                return result
            }
        }
    }

    /// The token in `cache` while it lasts, else a fresh login's, which is then cached.
    private func cachedOrLogin(
        _ cache: OpenBaoTokenCache?, _ login: () throws(VaultError) -> OpenBaoLoginResult
    ) throws(VaultError) -> SecureBytes {
        if let cache, let cached = cache.load() {
            token = cached
            tokenCache = cache
            return cached
        }
        let result = try login()
        cache?.store(result.token, expires: result.expires)
        token = result.token
        tokenCache = nil
        return result.token
    }

    /// How long to wait before asking a mount that is upgrading again.
    private static let upgradePollMilliseconds = 50

    // MARK: The cluster

    /// Points the following requests at the active node, when several nodes are configured.
    ///
    /// A standby of OpenBao 2.x runs a request on its own copy of the data, which lags the
    /// active node's, and forwards it only once it tries to write ("horizontal read
    /// scalability"). A write's check-and-set read, or its metadata patch right after the data
    /// write, would see a version the standby has not yet received (a patch of metadata it does
    /// not have yet answers 404). So every write asks `sys/leader` first; if no node knows the
    /// active one (an election), the requests go where they would have gone.
    func preferActiveNode(deadline: Deadline) {
        let count = settings.addresses.count
        guard count > 1 else { return }
        for step in 0..<count {
            let index = (preferred + step) % count
            let request = HTTPRequest(
                method: "GET", url: settings.addresses[index] + "/v1/sys/leader", headers: [], body: nil)
            guard let response = try? http.send(request, deadline: deadline) else {
                if deadline.hasPassed { return }
                continue
            }
            guard response.status == 200, let json = try? response.json() else { continue }
            if json["is_self"]?.bool == true {
                preferred = index
                return
            }
            guard let leader = json["leader_address"]?.string, !leader.isEmpty else { return }
            let origin = HTTPURL.origin(of: leader).lowercased()
            if let active = settings.addresses.firstIndex(where: { HTTPURL.origin(of: $0).lowercased() == origin }) {
                preferred = active
            }
            return
        }
    }

    private func sendToCluster(
        _ method: String, _ path: String, body: JSONValue?, contentType: String, token: String?,
        deadline: Deadline
    ) throws(VaultError) -> Answer {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("X-Vault-Token", token)) }
        if body != nil { headers.append(("Content-Type", contentType)) }
        let bodyBytes = body?.encoded()
        let count = settings.addresses.count
        var failures: [String] = []
        var lastAnswer: Answer?
        for step in 0..<count {
            let index = (preferred + step) % count
            var url = settings.addresses[index] + "/v1/" + path
            var redirects = 0
            while true {
                let request = HTTPRequest(method: method, url: url, headers: headers, body: bodyBytes)
                let response: HTTPResponse
                do {
                    response = try http.send(request, deadline: deadline)
                } catch {
                    // Only a connection that never carried the request may go to another node: a
                    // write that timed out or broke may have been applied.
                    guard error.isConnectionFailure, !deadline.hasPassed else {
                        throw VaultError(.unavailable, "\(error.vaultError.message); check BAO_ADDR and the server")
                    }
                    // Standbys redirect to a dead active node: name each failure once.
                    if !failures.contains(error.reason) { failures.append(error.reason) }
                    break
                }
                if response.status == 307 || response.status == 308, let location = response.header("Location") {
                    redirects += 1
                    guard redirects <= 3, let target = knownTarget(location, from: url) else {
                        throw VaultError(
                            .unavailable,
                            "\(response.server) redirected to \(HTTPURL.origin(of: location)), which is not in BAO_ADDR; add the active node's address to BAO_ADDR"
                        )
                    }
                    url = target
                    continue
                }
                let json = response.body.isEmpty ? nil : try? response.json()
                let answer = Answer(status: response.status, json: json, server: response.server)
                if response.status == 503 || (response.status >= 500 && answer.errors.lowercased().contains("sealed")) {
                    // Sealed, or a standby that knows no active node (an election): try the next node.
                    lastAnswer = answer
                    failures.append(
                        "\(response.server): \(answer.errors.isEmpty ? "HTTP \(response.status)" : answer.errors)")
                    break
                }
                preferred = index
                return answer
            }
        }
        if let lastAnswer {
            if lastAnswer.errors.lowercased().contains("sealed") {
                throw VaultError(
                    .unavailable, "\(lastAnswer.server) is sealed; unseal it (bao operator unseal) or use another node")
            }
            throw VaultError(
                .unavailable,
                "no active node answered (\(failures.joined(separator: "; "))); try again when the cluster has elected one"
            )
        }
        throw VaultError(
            .unavailable,
            "cannot reach \(serverList) (\(failures.joined(separator: "; "))); check BAO_ADDR and that the server is running"
        )
    }

    /// The redirect's absolute URL if it points at a configured node, else nil.
    private func knownTarget(_ location: String, from url: String) -> String? {
        let absolute = location.hasPrefix("/") ? HTTPURL.origin(of: url) + location : location
        let origin = HTTPURL.origin(of: absolute).lowercased()
        let known = settings.addresses.contains { HTTPURL.origin(of: $0).lowercased() == origin }
        return known ? absolute : nil
    }

    /// An error for an answer the operation did not expect.
    func unexpected(_ answer: Answer, doing what: String) -> VaultError {
        OpenBaoLogin.unexpected(answer, doing: what)
    }
}

extension OpenBaoClient.Answer {
    /// Whether a KV v2 mount answered that it is upgrading from unversioned data.
    var isUpgrading: Bool {
        status == 400
            && (errors.contains("Upgrading from non-versioned to versioned data")
                || errors.contains("Waiting for the primary to upgrade"))
    }
}
