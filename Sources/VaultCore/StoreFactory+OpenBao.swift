public import VaultOpenBao
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// The glue for the OpenBao backend: the `BAO_*` (else `VAULT_*`) variables of OpenBao's and
/// HashiCorp Vault's own CLIs (docs/openbao.md), as ``Configuration`` read them.
extension StoreFactory {
    /// Builds the OpenBao store from the environment.
    public func makeOpenBaoStore() throws(VaultError) -> OpenBaoStore {
        OpenBaoStore(settings: try openBaoSettings())
    }

    /// A warning to show on stderr when TLS verification is switched off (`BAO_SKIP_VERIFY`), or nil.
    public func openBaoWarning() -> String? {
        guard let skip = configuration.openBao.skipVerify, skip.value else { return nil }
        return "warning: \(skip.name) is set: the OpenBao server's TLS certificate is not verified"
    }

    func openBaoSettings() throws(VaultError) -> OpenBaoSettings {
        let variables = configuration.openBao
        guard let address = variables.address else {
            throw VaultError(
                .usage, "the openbao backend needs the server's address in BAO_ADDR (e.g. https://bao.example.com:8200)"
            )
        }
        let addresses = try OpenBaoAddress.parse(
            address.value, variable: address.name, allowHTTP: try allowsPlainHTTP())
        let mount = variables.kvMount
        let http = HTTPClient.Configuration(
            caFile: variables.caCertificate, skipVerify: variables.skipVerify?.value ?? false,
            proxies: configuration.proxies)
        return OpenBaoSettings(
            addresses: addresses, credentials: try openBaoCredentials(addresses: addresses, mount: mount), mount: mount,
            timeout: try timeout(), http: http)
    }

    /// How vault logs in, in this order (docs/openbao.md, "Logging in"): `BAO_TOKEN`, else a JWT
    /// login (`BAO_JWT`, `BAO_JWT_FILE`, or the Actions id token when `BAO_JWT_ROLE` is set),
    /// else AppRole (`BAO_ROLE_ID` with `BAO_SECRET_ID` or `BAO_SECRET_ID_FILE`), else the token
    /// file of the bao and vault CLIs (`~/.vault-token`).
    private func openBaoCredentials(addresses: [String], mount: String) throws(VaultError) -> OpenBaoCredentials {
        let variables = configuration.openBao
        if let token = variables.token {
            return .token(SecureBytes(token.value.utf8), origin: token.name)
        }
        if let jwt = try openBaoJWTLogin(addresses: addresses) { return .jwt(jwt) }
        if let role = variables.roleID {
            let secretID: OpenBaoSecretID
            if let secret = variables.secretID {
                secretID = .value(secret)
            } else if let file = variables.secretIDFile {
                secretID = .file(file)
            } else {
                throw VaultError(.cannotUnlock, "\(role.name) is set without BAO_SECRET_ID or BAO_SECRET_ID_FILE")
            }
            let approle = variables.appRoleMount
            var cachePrefix: String?
            if let runtime = configuration.folders.vaultRuntime {
                let key = Digest.hex(addresses.joined(separator: ",") + "\n" + approle + "\n" + role.value, bytes: 8)
                cachePrefix = runtime + "/openbao-approle-" + key
            }
            return .appRole(roleID: role.value, secretID: secretID, mount: approle, cachePrefix: cachePrefix)
        }
        if let home = configuration.folders.home {
            let path = home + "/.vault-token"
            if FileSystem.exists(path) {
                var bytes = try FileSystem.readPrivate(path, what: "token file")
                while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
                if !bytes.isEmpty { return .token(bytes, origin: path) }
            }
        }
        throw VaultError(
            .cannotUnlock,
            "no OpenBao token", remedy: .provideOpenBaoCredentials)
    }

    /// The JWT login, when one is asked for: `BAO_JWT` or `BAO_JWT_FILE`, else the GitHub or
    /// Forgejo Actions id token when `BAO_JWT_ROLE` is set and the job may ask for one
    /// (`ACTIONS_ID_TOKEN_REQUEST_URL` and `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, which a job gets with
    /// `permissions: id-token: write`). nil when none of these is set.
    private func openBaoJWTLogin(addresses: [String]) throws(VaultError) -> OpenBaoJWTLogin? {
        let variables = configuration.openBao
        let role = variables.jwtRole
        let source: OpenBaoJWTSource
        if let jwt = variables.jwt {
            source = .value(SecureBytes(jwt.value.utf8), variable: jwt.name)
        } else if let file = variables.jwtFile {
            source = .file(file.value, variable: file.name)
        } else if let role {
            guard let url = variables.actionsTokenURL, let token = variables.actionsTokenCredential else {
                throw VaultError(.cannotUnlock, "\(role.name) is set without a JWT", remedy: .provideJWT)
            }
            guard HTTPURL.isHTTP(url) else {
                throw VaultError(.usage, "ACTIONS_ID_TOKEN_REQUEST_URL is not an http:// or https:// URL")
            }
            // The request token goes to this URL as a bearer token: plain http only to this
            // machine, as for BAO_ADDR and token endpoints.
            if url.lowercased().hasPrefix("http://"), !HTTPURL.isLoopback(host: HTTPURL.host(of: url)),
                !(try allowsPlainHTTP())
            {
                throw VaultError(
                    .usage,
                    "ACTIONS_ID_TOKEN_REQUEST_URL holds \(HTTPURL.origin(of: url)): plain http would send the request token in clear over the network",
                    remedy: .useHTTPS)
            }
            source = .actions(
                requestURL: url, requestToken: SecureBytes(token.utf8), audience: variables.jwtAudience)
        } else {
            return nil
        }
        let mount = variables.jwtMount
        var cachePrefix: String?
        if let runtime = configuration.folders.vaultRuntime {
            let key = Digest.hex(addresses.joined(separator: ",") + "\n" + mount + "\n" + (role?.value ?? ""), bytes: 8)
            cachePrefix = runtime + "/openbao-jwt-" + key
        }
        return OpenBaoJWTLogin(role: role?.value, mount: mount, source: source, cachePrefix: cachePrefix)
    }
}
