public import VaultStorage
import VaultSystem

/// What the device authorization endpoint answered (RFC 8628 section 3.2): the codes to show the
/// user and how to poll.
public struct DeviceAuthorization: Sendable {
    let deviceCode: String
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String?
    /// Seconds the device code stays valid.
    public let expiresIn: Int
    /// Seconds between polls: 5 when the server does not say.
    let interval: Int
}

/// The device authorization grant (RFC 8628), the login `gh auth login` uses, in two steps so
/// that the caller can show the user code in between.
public struct DeviceLogin {
    let client: OAuthClientConfiguration
    let deviceURL: String
    let oauth: OAuthClient

    /// Asks the device authorization endpoint for a device code and a user code (section 3.1).
    public func start() throws(VaultError) -> DeviceAuthorization {
        var fields: [(name: String, value: String)] = []
        if let scope = client.scope { fields.append(("scope", scope)) }
        let response = try oauth.post(
            deviceURL, fields, client: client, clientSecret: nil, deadline: Deadline(seconds: oauth.timeout))
        guard response.status == 200 else {
            let error = TokenErrorResponse(json: response.body)?.error
            throw VaultError(
                response.status >= 500 ? .unavailable : .usage,
                "the device authorization endpoint \(HTTPURL.origin(of: deviceURL)) answered HTTP \(response.status)"
                    + (error.map { " (\(OAuthClient.printable(Array($0.utf8))))" } ?? ""))
        }
        guard let json = try? JSONValue.parse(response.body), let deviceCode = json["device_code"]?.string,
            let userCode = json["user_code"]?.stringBytes,
            let uri = json["verification_uri"]?.stringBytes ?? json["verification_url"]?.stringBytes,
            let expiresIn = json["expires_in"]?.integer, expiresIn > 0
        else {
            throw VaultError(
                .unavailable,
                "the device authorization endpoint \(HTTPURL.origin(of: deviceURL)) sent no device_code, user_code, verification_uri or expires_in"
            )
        }
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: OAuthClient.printable(userCode),
            verificationURI: OAuthClient.printable(uri),
            verificationURIComplete: json["verification_uri_complete"]?.stringBytes.map(OAuthClient.printable),
            expiresIn: expiresIn, interval: max(json["interval"]?.integer ?? 5, 1))
    }

    /// Polls the token endpoint (section 3.4) until the user approves, denies, or the code
    /// expires. `authorization_pending` waits the interval; `slow_down` adds 5 seconds to it for
    /// good (section 3.5). Denied is `.cannotUnlock`, expired `.expired`; a poll that gets no
    /// answer or a 5xx is repeated at the next interval.
    public func finish(_ authorization: DeviceAuthorization) throws(VaultError) -> TokenResponse {
        let expired = VaultError(.expired, "the device code expired before the login was approved; nothing was stored")
        let deadline = Deadline(seconds: Double(authorization.expiresIn))
        var interval = Double(authorization.interval)
        let fields: [(name: String, value: String)] = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", authorization.deviceCode),
        ]
        while true {
            OAuthClient.pause(interval)
            if deadline.hasPassed { throw expired }
            guard
                let response = try? oauth.post(
                    client.tokenURL, fields, client: client, clientSecret: nil,
                    deadline: Deadline(seconds: oauth.timeout))
            else { continue }
            if response.status == 200 {
                return try TokenResponse(
                    json: response.secureBody, origin: "the token endpoint \(HTTPURL.origin(of: client.tokenURL))")
            }
            switch TokenErrorResponse(json: response.body)?.error {
            case "authorization_pending": continue
            case "slow_down": interval += 5
            case "access_denied":
                throw VaultError(
                    .cannotUnlock, "the login was denied at \(authorization.verificationURI); nothing was stored")
            case "expired_token": throw expired
            case let error:
                if response.status >= 500 { continue }
                throw VaultError(
                    .unavailable,
                    "the token endpoint \(HTTPURL.origin(of: client.tokenURL)) answered HTTP \(response.status)"
                        + (error.map { " (\(OAuthClient.printable(Array($0.utf8))))" } ?? ""))
            }
        }
    }

    package init(client: OAuthClientConfiguration, deviceURL: String, oauth: OAuthClient) {
        self.client = client
        self.deviceURL = deviceURL
        self.oauth = oauth
    }
}
