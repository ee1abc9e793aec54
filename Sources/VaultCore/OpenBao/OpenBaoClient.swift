#if canImport(Glibc)
    import Glibc
#endif

/// Talks to an OpenBao or HashiCorp Vault cluster over its HTTP API (`/v1/...`), HA-aware.
///
/// - Every request carries the token in `X-Vault-Token`; the token comes from
///   ``OpenBaoCredentials`` (an AppRole login is made once and cached).
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
    private var token: String?
    /// Whether `token` came from the AppRole cache (a refusal then means: log in again).
    private var tokenFromCache = false
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
        let token = try currentToken(deadline: deadline)
        var answer = try sendToCluster(
            method, path, body: body, contentType: contentType, token: token, resendable: resendable,
            deadline: deadline)
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
                method, path, body: body, contentType: contentType, token: token, resendable: resendable,
                deadline: deadline)
        }
        guard answer.status == 403, !refusalIsAnswer else { return answer }
        if tokenFromCache, case .appRole(_, _, _, let cacheFile?) = settings.credentials {
            // The cached login token was revoked or its policies changed: log in once more.
            OpenBaoTokenCache(path: cacheFile).remove()
            self.token = nil
            let fresh = try currentToken(deadline: deadline)
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
            "\(answer.server) refused the token from \(credentialOrigin) (permission denied); check the token and its policy (docs/openbao.md)"
        )
    }

    private var credentialOrigin: String {
        switch settings.credentials {
        case .token(_, let origin): origin
        case .appRole(_, _, let mount, _): "the AppRole login at auth/\(mount)"
        }
    }

    // MARK: Token

    private func currentToken(deadline: Deadline) throws(VaultError) -> String {
        if let token { return token }
        switch settings.credentials {
        case .token(let value, _):
            token = value
            return value
        case .appRole(let roleID, let secretID, let mount, let cacheFile):
            if let cacheFile, let cached = OpenBaoTokenCache(path: cacheFile).load() {
                token = cached
                tokenFromCache = true
                return cached
            }
            let login = try appRoleLogin(roleID: roleID, secretID: secretID, mount: mount, deadline: deadline)
            if let cacheFile { OpenBaoTokenCache(path: cacheFile).store(login.token, expires: login.expires) }
            token = login.token
            tokenFromCache = false
            return login.token
        }
    }

    private func appRoleLogin(
        roleID: String, secretID: OpenBaoSecretID, mount: String, deadline: Deadline
    ) throws(VaultError) -> (token: String, expires: Timestamp) {
        let secret: String
        switch secretID {
        case .value(let value): secret = value
        case .file(let path):
            var bytes = try FileSystem.readPrivate(path, what: "AppRole secret ID file (BAO_SECRET_ID_FILE)")
            while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
            secret = String(decoding: bytes, as: UTF8.self)
        }
        let body = JSONValue.object(strings: [("role_id", roleID), ("secret_id", secret)])
        let path =
            "auth/" + mount.split(separator: "/").map { HTTPForm.pathSegment(String($0)) }.joined(separator: "/")
            + "/login"
        let answer = try sendToCluster(
            "POST", path, body: body, contentType: "application/json", token: nil, deadline: deadline)
        guard answer.status == 200, let auth = answer.json?["auth"], let token = auth["client_token"]?.string,
            !token.isEmpty
        else {
            if answer.status == 400 || answer.status == 403 {
                throw VaultError(
                    .cannotUnlock,
                    "\(answer.server) refused the AppRole login at auth/\(mount) (BAO_ROLE_ID, BAO_SECRET_ID): \(answer.errors)"
                )
            }
            throw unexpected(answer, doing: "the AppRole login at auth/\(mount)")
        }
        let lease = Int64(auth["lease_duration"]?.integer ?? 0)
        // A lease of 0 means the token does not expire: keep it for a day at most.
        let expires = Timestamp.now().adding(seconds: lease > 0 ? lease : 86_400)
        return (token, expires)
    }

    /// How long to wait before asking a mount that is upgrading again.
    private static let upgradePollMilliseconds = 50

    /// An error for an answer the operation did not expect.
    func unexpected(_ answer: Answer, doing what: String) -> VaultError {
        let detail = answer.errors.isEmpty ? "" : ": \(answer.errors)"
        return VaultError(.unavailable, "\(answer.server) answered HTTP \(answer.status) to \(what)\(detail)")
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
