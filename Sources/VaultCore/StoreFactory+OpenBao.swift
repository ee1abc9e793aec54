public import VaultOpenBao
import VaultSecureBytes
public import VaultStorage
import VaultSystem

/// The glue for the OpenBao backend: the `BAO_*` (else `VAULT_*`) variables of OpenBao's and
/// HashiCorp Vault's own CLIs (docs/openbao.md).
extension StoreFactory {
    /// The first of `names` that is set and not empty.
    private func first(_ names: String...) -> (name: String, value: String)? {
        for name in names {
            if let value = environment[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// Builds the OpenBao store from the environment.
    public func makeOpenBaoStore() throws(VaultError) -> OpenBaoStore {
        OpenBaoStore(settings: try openBaoSettings())
    }

    /// A warning to show on stderr when TLS verification is switched off (`BAO_SKIP_VERIFY`), or nil.
    public func openBaoWarning() -> String? {
        guard let skip = first("BAO_SKIP_VERIFY", "VAULT_SKIP_VERIFY"), Self.isTrue(skip.value) else { return nil }
        return "warning: \(skip.name) is set: the OpenBao server's TLS certificate is not verified"
    }

    private static func isTrue(_ text: String) -> Bool {
        ["1", "true", "yes", "on", "t"].contains(text.lowercased())
    }

    func openBaoSettings() throws(VaultError) -> OpenBaoSettings {
        guard let address = first("BAO_ADDR", "VAULT_ADDR") else {
            throw VaultError(
                .usage, "the openbao backend needs the server's address in BAO_ADDR (e.g. https://bao.example.com:8200)"
            )
        }
        let addresses = try OpenBaoAddress.parse(
            address.value, variable: address.name, allowHTTP: try allowsPlainHTTP())
        let mount = first("BAO_KV_MOUNT", "VAULT_KV_MOUNT")?.value ?? "secret"
        let skip = first("BAO_SKIP_VERIFY", "VAULT_SKIP_VERIFY").map { Self.isTrue($0.value) } ?? false
        let http = HTTPClient.Configuration(
            caFile: first("BAO_CACERT", "VAULT_CACERT")?.value, skipVerify: skip, proxies: configuration.proxies)
        return OpenBaoSettings(
            addresses: addresses, credentials: try openBaoCredentials(addresses: addresses, mount: mount), mount: mount,
            timeout: try timeout(), http: http)
    }

    /// How vault logs in, in this order (docs/openbao.md, "Logging in"): `BAO_TOKEN`, else a JWT
    /// login (`BAO_JWT`, `BAO_JWT_FILE`, or the Actions id token when `BAO_JWT_ROLE` is set),
    /// else AppRole (`BAO_ROLE_ID` with `BAO_SECRET_ID` or `BAO_SECRET_ID_FILE`), else the token
    /// file of the bao and vault CLIs (`~/.vault-token`).
    private func openBaoCredentials(addresses: [String], mount: String) throws(VaultError) -> OpenBaoCredentials {
        if let token = first("BAO_TOKEN", "VAULT_TOKEN") {
            return .token(SecureBytes(token.value.utf8), origin: token.name)
        }
        if let jwt = try openBaoJWTLogin(addresses: addresses) { return .jwt(jwt) }
        if let role = first("BAO_ROLE_ID", "VAULT_ROLE_ID") {
            let secretID: OpenBaoSecretID
            if let secret = first("BAO_SECRET_ID", "VAULT_SECRET_ID") {
                secretID = .value(secret.value)
            } else if let file = first("BAO_SECRET_ID_FILE", "VAULT_SECRET_ID_FILE") {
                secretID = .file(file.value)
            } else {
                throw VaultError(.cannotUnlock, "\(role.name) is set without BAO_SECRET_ID or BAO_SECRET_ID_FILE")
            }
            let approle = first("BAO_APPROLE_MOUNT", "VAULT_APPROLE_MOUNT")?.value ?? "approle"
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
        let role = first("BAO_JWT_ROLE", "VAULT_JWT_ROLE")
        let source: OpenBaoJWTSource
        if let jwt = first("BAO_JWT", "VAULT_JWT") {
            source = .value(SecureBytes(jwt.value.utf8), variable: jwt.name)
        } else if let file = first("BAO_JWT_FILE", "VAULT_JWT_FILE") {
            source = .file(file.value, variable: file.name)
        } else if let role {
            guard let url = first("ACTIONS_ID_TOKEN_REQUEST_URL"), let token = first("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
            else {
                throw VaultError(.cannotUnlock, "\(role.name) is set without a JWT", remedy: .provideJWT)
            }
            guard HTTPURL.isHTTP(url.value) else {
                throw VaultError(.usage, "ACTIONS_ID_TOKEN_REQUEST_URL is not an http:// or https:// URL")
            }
            // The request token goes to this URL as a bearer token: plain http only to this
            // machine, as for BAO_ADDR and token endpoints.
            if url.value.lowercased().hasPrefix("http://"), !HTTPURL.isLoopback(host: HTTPURL.host(of: url.value)),
                !(try allowsPlainHTTP())
            {
                throw VaultError(
                    .usage,
                    "ACTIONS_ID_TOKEN_REQUEST_URL holds \(HTTPURL.origin(of: url.value)): plain http would send the request token in clear over the network",
                    remedy: .useHTTPS)
            }
            source = .actions(
                requestURL: url.value, requestToken: SecureBytes(token.value.utf8),
                audience: first("BAO_JWT_AUDIENCE", "VAULT_JWT_AUDIENCE")?.value)
        } else {
            return nil
        }
        var mount = first("BAO_JWT_MOUNT", "VAULT_JWT_MOUNT")?.value ?? "jwt"
        while mount.hasSuffix("/") { mount.removeLast() }
        var cachePrefix: String?
        if let runtime = configuration.folders.vaultRuntime {
            let key = Digest.hex(addresses.joined(separator: ",") + "\n" + mount + "\n" + (role?.value ?? ""), bytes: 8)
            cachePrefix = runtime + "/openbao-jwt-" + key
        }
        return OpenBaoJWTLogin(role: role?.value, mount: mount, source: source, cachePrefix: cachePrefix)
    }
}
