import FoundationEssentials
package import VaultSecureBytes
package import VaultStorage
package import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// OAuth 2.0 as a client, over vault's HTTP layer: refresh (RFC 6749 section 6) here, the device
/// grant (RFC 8628) in DeviceLogin.swift.
package struct OAuthClient: TokenEndpoint {
    let http: HTTPClient
    /// `VAULT_TIMEOUT`: the most one refresh may take, its retry included.
    let timeout: Double

    /// A form-encoded POST (RFC 6749 Appendix B), answered in JSON; a confidential client
    /// authenticates with HTTP Basic (section 2.3.1), a public one sends its `client_id`.
    func post(
        _ url: String, _ fields: [(name: String, value: String)], client: OAuthClientConfiguration,
        clientSecret: SecureBytes?, deadline: Deadline
    ) throws(VaultError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        var fields = fields
        if let clientSecret {
            // ID and secret are each form-encoded first, so the one bare '=' is the separator.
            // The HTTP layer takes text: the secret is a String from here to the request.
            var credentials = HTTPForm.encode([
                (client.clientID, clientSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
            ])
            if let equals = credentials.firstIndex(of: UInt8(ascii: "=")) { credentials[equals] = UInt8(ascii: ":") }
            var basic = SecureBytes(Array("Basic ".utf8))
            basic.appendBase64(of: credentials)
            headers.append(("Authorization", String(decoding: basic, as: UTF8.self)))
        } else {
            fields.append(("client_id", client.clientID))
        }
        do {
            return try http.send(HTTPRequest.form(url, fields, headers: headers), deadline: deadline)
        } catch {
            throw error.vaultError
        }
    }

    package func refresh(
        _ client: OAuthClientConfiguration, refreshToken: SecureBytes, clientSecret: SecureBytes?, name: SecretName
    ) throws(VaultError) -> TokenResponse {
        let fields: [(name: String, value: String)] = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refreshToken.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }),
        ]
        let deadline = Deadline(seconds: timeout)
        var attempts = 0
        var response: HTTPResponse
        // One retry, after a short pause, for no answer or a 5xx; both within VAULT_TIMEOUT.
        while true {
            attempts += 1
            var failure: VaultError
            do throws(VaultError) {
                response = try post(
                    client.tokenURL, fields, client: client, clientSecret: clientSecret, deadline: deadline)
                if response.status < 500 { break }
                failure = VaultError(
                    .unavailable,
                    "the token endpoint \(HTTPURL.origin(of: client.tokenURL)) answered HTTP \(response.status)")
            } catch {
                failure = error
            }
            guard attempts < 2, deadline.remainingMilliseconds > 400 else {
                throw VaultError(
                    .unavailable, "cannot refresh '\(name.account)': \(failure.message)", remedy: failure.remedy)
            }
            Self.pause(0.25)
        }
        if response.status == 200 {
            return try TokenResponse(
                json: response.secureBody, origin: "the token endpoint \(HTTPURL.origin(of: client.tokenURL))")
        }
        let error = TokenErrorResponse(json: response.body)?.error
        switch error {
        case "invalid_grant":
            throw VaultError(
                .cannotUnlock,
                "the token server rejected the refresh token of '\(name.account)' (invalid_grant)",
                remedy: .logInAgain(account: name.account))
        case "invalid_client", "unauthorized_client":
            throw VaultError(
                .cannotUnlock,
                "the token server rejected the client '\(client.clientID)' (\(error ?? ""))",
                remedy: .check("its ID and secret"))
        default:
            throw VaultError(
                .unavailable,
                "the token endpoint \(HTTPURL.origin(of: client.tokenURL)) answered HTTP \(response.status)"
                    + (error.map { " (\(Self.printable(Array($0.utf8))))" } ?? ""))
        }
    }

    /// Sleeps, resuming after signals.
    static func pause(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        // Not retried as is: after a signal the sleep resumes with the time remaining.
        while case .failure(.interrupted) = valueOrErrno(retryOnInterrupt: false, { nanosleep(&request, &remaining) }) {
            request = remaining
        }
    }

    /// Text from a server, for a message: control characters become '?'.
    static func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }

    package init(http: HTTPClient, timeout: Double) {
        self.http = http
        self.timeout = timeout
    }
}
