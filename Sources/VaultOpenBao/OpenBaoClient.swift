import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Talks to an OpenBao or HashiCorp Vault cluster over its HTTP API (`/v1/...`), HA-aware.
///
/// - Every request carries the token in `X-Vault-Token`; the token comes from
///   ``OpenBaoCredentials`` (an AppRole or JWT login is made once and cached, ``OpenBaoLogin``).
/// - A node that cannot be connected to is skipped for the next address; a node that is
///   sealed, a standby without an active node or one that answers 5xx is skipped too. When no
///   node serves the request, it is tried again across the nodes with a short backoff until the
///   deadline (an election takes seconds): ``sendToCluster``, OpenBaoClient+Cluster.swift.
/// - A 307/308 redirect (a standby pointing at the active node) is followed only to one of the
///   configured addresses, so the token never goes to a host the user did not name.
/// - A write asks `sys/leader` first and goes to the active node (``preferActiveNode(deadline:)``):
///   an OpenBao standby answers from a copy of the data that lags the active node's.
/// - One deadline (`VAULT_TIMEOUT`) bounds everything one store operation does.
/// - Messages name the server and never the token or a request body.
final class OpenBaoClient {
    let settings: OpenBaoSettings
    let http: HTTPClient
    private var token: SecureBytes?
    /// The login cache `token` came from, if it did: a refusal then means log in again.
    private var tokenCache: OpenBaoTokenCache?
    /// The node that answered last: tried first next time.
    var preferred = 0

    init(settings: OpenBaoSettings) {
        self.settings = settings
        var http = settings.http
        // A node that does not answer its connection (a host that died without a word) must not
        // take the whole VAULT_TIMEOUT when other nodes could serve: see sendToCluster.
        if settings.addresses.count > 1, http.connectTimeout == nil {
            http.connectTimeout = max(Self.shortestConnectTimeout, settings.timeout / 4)
        }
        self.http = HTTPClient(http)
    }

    /// The least time a connection to one of several nodes is given.
    static let shortestConnectTimeout = 1.0

    /// The servers, for messages: `https://a:8200` or `https://a:8200, https://b:8200`.
    var serverList: String { settings.addresses.map(HTTPURL.origin(of:)).joined(separator: ", ") }

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
    /// statuses are returned. `resendable`: whether the request may be sent again after an attempt
    /// whose outcome is unknown (see ``sendToCluster``); nil lets the method decide.
    func send(
        _ method: String, _ path: String, body: JSONValue? = nil, contentType: String = "application/json",
        refusalIsAnswer: Bool = false, resendable: Bool? = nil, deadline: Deadline
    ) throws(VaultError) -> Answer {
        // The header path takes Strings: the token is copied out of its SecureBytes per request.
        let token = String(decoding: try currentToken(deadline: deadline), as: UTF8.self)
        var answer = try sendToCluster(
            method, path, body: body, contentType: contentType, token: token, resendable: resendable,
            deadline: deadline)
        // A KV v2 mount just enabled, or just taken over by a new active node, refuses requests
        // until it has checked for unversioned data; the server says it resumes shortly.
        while answer.isUpgrading {
            guard deadline.remainingMilliseconds > Self.upgradePollMilliseconds else {
                throw VaultError(
                    .unavailable,
                    "\(answer.server): the KV mount \(settings.mount) is still upgrading to versioned data",
                    remedy: .retry)
            }
            usleep(UInt32(Self.upgradePollMilliseconds * 1000))
            answer = try sendToCluster(
                method, path, body: body, contentType: contentType, token: token, resendable: resendable,
                deadline: deadline)
        }
        guard answer.status == 403, !refusalIsAnswer else { return answer }
        if let cache = tokenCache {
            // The cached login token was revoked or its policies changed: log in once more.
            cache.remove()
            self.token = nil
            self.tokenCache = nil
            let fresh = String(decoding: try currentToken(deadline: deadline), as: UTF8.self)
            let retried = try sendToCluster(
                method, path, body: body, contentType: contentType, token: fresh, resendable: resendable,
                deadline: deadline)
            guard retried.status == 403 else { return retried }
            throw permissionDenied(retried)
        }
        throw permissionDenied(answer)
    }

    private func permissionDenied(_ answer: Answer) -> VaultError {
        VaultError(
            .cannotUnlock,
            "\(answer.server) refused the token from \(credentialOrigin) (permission denied)",
            remedy: .check("the token and its policy (docs/openbao.md)"))
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
        case .appRole(let roleID, let secretIDSource, let mount, let cachePrefix):
            // The secret ID is read first: the cache entry is the one for this very secret ID.
            let secretID = try secretIDSource.read()
            let cache = cachePrefix.map { OpenBaoTokenCache(path: $0 + "-" + OpenBaoSecretID.cacheKey(secretID)) }
            return try cachedOrLogin(cache) { () throws(VaultError) in
                let result = try login.appRole(roleID: roleID, secretID: secretID, mount: mount)
                if let cachePrefix { OpenBaoTokenCache.removeUnusable(startingWith: cachePrefix + "-") }
                return result
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
