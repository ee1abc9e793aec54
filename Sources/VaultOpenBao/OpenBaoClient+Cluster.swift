import VaultSecureBytes
import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Sending a request to the nodes of a cluster, and riding out a failover.
///
/// When the active node dies, the standbys keep naming it as the leader until an election is
/// over (about 10 s with OpenBao's defaults): a standby redirects to, or fails to forward to, a
/// node that is gone, and then answers 503 while it elects. A command that gave up at the first
/// round would fail at once while `VAULT_TIMEOUT` still allows it to wait for the new leader, so
/// a round in which no node served the request is followed by another, after a short backoff,
/// until the deadline.
///
/// What may be sent again:
/// - a request that never reached a server (connection refused, a redirect to a dead node, a
///   standby's 503: the standby did not run it) goes to the next node and round, whatever it is;
/// - a request whose outcome is unknown (the connection broke after it was sent, a node answered
///   another 5xx, which a standby also gives when forwarding to a dying active node failed) is
///   sent again only if `resendable`: a read, a metadata merge-patch or a delete, which do the
///   same twice, or a check-and-set write, whose caller checks a failed check against what it
///   wrote (OpenBaoStore+Write.swift). Anything else fails at once.
extension OpenBaoClient {
    /// The first pause between two rounds, doubled each round up to ``longestBackoffMilliseconds``.
    static let firstBackoffMilliseconds = 100
    static let longestBackoffMilliseconds = 800

    /// What one attempt at one node (and the redirects it led to) came to.
    private enum Attempt {
        case answer(Answer)
        /// The request was not run by any server: it may go anywhere again.
        case notRun(String)
        /// A node was sealed (not run either, but no election will change that).
        case sealed(String)
        /// The request may have been run.
        case unknownOutcome(String)
    }

    /// Points the following requests at the active node, when several nodes are configured.
    ///
    /// A standby of OpenBao 2.x runs a request on its own copy of the data, which lags the
    /// active node's, and forwards it only once it tries to write ("horizontal read
    /// scalability"). A write's check-and-set read, or its metadata patch right after the data
    /// write, would see a version the standby has not yet received (a patch of metadata it does
    /// not have yet answers 404). So every write asks `sys/leader` first, and asks again after a
    /// round in which no node served it; if no node knows the active one (an election), the
    /// requests go where they would have gone.
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
            if let active = knownNode(leader) { preferred = active }
            return
        }
    }

    /// Sends the request to the nodes, starting with the preferred one, round after round until
    /// one serves it or the deadline passes (see the type's comment).
    func sendToCluster(
        _ method: String, _ path: String, body: JSONValue?, contentType: String, token: String?,
        resendable: Bool? = nil, deadline: Deadline
    ) throws(VaultError) -> Answer {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("X-Vault-Token", token)) }
        if body != nil { headers.append(("Content-Type", contentType)) }
        // The request body may hold a secret's value: secret bytes, zeroed once every attempt is over.
        let bodyBytes = body?.encoded()
        let resendable = resendable ?? (method != "POST" && method != "PUT")
        let count = settings.addresses.count
        // Each node's last failure, for the message when no node served the request in time.
        var failures = [String?](repeating: nil, count: count)
        var backoff = Self.firstBackoffMilliseconds
        while true {
            var allSealed = true
            for step in 0..<count {
                let index = (preferred + step) % count
                let attempt = try self.attempt(
                    method, index: index, path: path, headers: headers, body: bodyBytes, deadline: deadline,
                    failures: failures)
                switch attempt {
                case .answer(let answer):
                    preferred = index
                    return answer
                case .notRun(let reason):
                    failures[index] = reason
                    allSealed = false
                case .sealed(let reason):
                    failures[index] = reason
                case .unknownOutcome(let reason):
                    failures[index] = reason
                    allSealed = false
                    guard resendable else {
                        throw VaultError(
                            .unavailable,
                            "\(reason); the request may have been carried out, so it is not sent again")
                    }
                }
            }
            if allSealed {
                throw VaultError(
                    .unavailable,
                    "\(failures.compactMap { $0 }.joined(separator: "; ")); unseal a node (bao operator unseal) or use another"
                )
            }
            // Leave the last attempt some time: a pause that eats the deadline helps no one.
            guard deadline.remainingMilliseconds > backoff + Self.firstBackoffMilliseconds else {
                throw noNodeServed(failures)
            }
            usleep(UInt32(backoff * 1000))
            backoff = min(backoff * 2, Self.longestBackoffMilliseconds)
            if count > 1 { preferActiveNode(deadline: deadline) }
        }
    }

    /// The error when the deadline passed with no node serving the request: every node's last
    /// failure, so that a dead node does not hide a misconfigured one.
    private func noNodeServed(_ failures: [String?]) -> VaultError {
        let each = failures.enumerated().map { index, failure in
            failure ?? "\(HTTPURL.origin(of: settings.addresses[index])): not tried in time"
        }
        let seconds = formatSeconds(settings.timeout)
        return VaultError(
            .unavailable,
            "no node served the request within VAULT_TIMEOUT (\(seconds) s): \(each.joined(separator: "; "))",
            remedy: .check("BAO_ADDR and that the servers are running"))
    }

    /// One attempt at node `index`, following redirects to other configured nodes.
    private func attempt(
        _ method: String, index: Int, path: String, headers: [(name: String, value: String)], body: SecureBytes?,
        deadline: Deadline, failures: [String?]
    ) throws(VaultError) -> Attempt {
        var url = settings.addresses[index] + "/v1/" + path
        var via: String?
        var redirects = 0
        while true {
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body)
            let response: HTTPResponse
            do {
                response = try http.send(request, deadline: deadline)
            } catch {
                let prefix = via.map { "\($0) redirected to \(error.server), and " } ?? ""
                switch error.kind {
                case .connect:
                    return .notRun("\(prefix)\(error.server): \(error.reason)")
                case .exchange:
                    return .unknownOutcome("\(prefix)the exchange with \(error.server) failed: \(error.reason)")
                case .timeout where !error.connected && !deadline.hasPassed:
                    // The connection was not made in the time one node is given (a host that
                    // died without a word): the request never left, another node may serve it.
                    // One that was made and then not answered had the whole remaining time. curl
                    // says which (its clock and the deadline's can end a fraction of a
                    // millisecond apart).
                    return .notRun("\(prefix)\(error.server) did not accept a connection in time: \(error.reason)")
                case .timeout:
                    // The attempt had the whole remaining time: the deadline is over.
                    var all = failures
                    all[index] = "\(prefix)\(error.server) did not answer in time: \(error.reason)"
                    throw noNodeServed(all)
                default:
                    throw VaultError(
                        error.vaultError.code, error.vaultError.message, remedy: .check("BAO_ADDR and the server"))
                }
            }
            if response.status == 307 || response.status == 308, let location = response.header("Location") {
                redirects += 1
                guard redirects <= 3, let target = knownTarget(location, from: url) else {
                    throw VaultError(
                        .unavailable,
                        "\(response.server) redirected to \(HTTPURL.origin(of: location)), which is not in BAO_ADDR",
                        remedy: .addActiveNode)
                }
                via = via ?? response.server
                url = target
                continue
            }
            let json = response.secureBody.isEmpty ? nil : try? response.json()
            let answer = Answer(status: response.status, json: json, server: response.server)
            guard response.status >= 500 else { return .answer(answer) }
            let detail = "\(response.server): \(answer.errors.isEmpty ? "HTTP \(response.status)" : answer.errors)"
            if answer.errors.lowercased().contains("sealed") { return .sealed("\(response.server) is sealed") }
            // 503: a standby that knows no active node (an election), or a node still starting:
            // it did not run the request. Any other 5xx may come after the request ran.
            return response.status == 503 ? .notRun(detail) : .unknownOutcome(detail)
        }
    }

    /// The index of the configured node at `address`'s origin, or nil.
    private func knownNode(_ address: String) -> Int? {
        let origin = HTTPURL.origin(of: address).lowercased()
        return settings.addresses.firstIndex { HTTPURL.origin(of: $0).lowercased() == origin }
    }

    /// The redirect's absolute URL if it points at a configured node, else nil.
    private func knownTarget(_ location: String, from url: String) -> String? {
        let absolute = location.hasPrefix("/") ? HTTPURL.origin(of: url) + location : location
        return knownNode(absolute) == nil ? nil : absolute
    }
}
