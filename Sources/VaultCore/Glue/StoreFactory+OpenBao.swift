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
            address.value, variable: address.name, allowHTTP: environment["VAULT_ALLOW_HTTP"] == "1")
        let mount = first("BAO_KV_MOUNT", "VAULT_KV_MOUNT")?.value ?? "secret"
        let skip = first("BAO_SKIP_VERIFY", "VAULT_SKIP_VERIFY").map { Self.isTrue($0.value) } ?? false
        let http = HTTPClient.Configuration(
            caFile: first("BAO_CACERT", "VAULT_CACERT")?.value, skipVerify: skip, environment: environment)
        return OpenBaoSettings(
            addresses: addresses, credentials: try openBaoCredentials(addresses: addresses, mount: mount), mount: mount,
            timeout: try timeout(), http: http)
    }

    /// `BAO_TOKEN`/`VAULT_TOKEN`, else AppRole (`BAO_ROLE_ID` with `BAO_SECRET_ID` or
    /// `BAO_SECRET_ID_FILE`), else the token file of the bao and vault CLIs (`~/.vault-token`).
    private func openBaoCredentials(addresses: [String], mount: String) throws(VaultError) -> OpenBaoCredentials {
        if let token = first("BAO_TOKEN", "VAULT_TOKEN") { return .token(token.value, origin: token.name) }
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
            var cacheFile: String?
            if let runtime = first("XDG_RUNTIME_DIR")?.value, runtime.hasPrefix("/") {
                let key = Self.fingerprint(addresses.joined(separator: ",") + "\n" + approle + "\n" + role.value)
                cacheFile = runtime + "/vault/openbao-token-" + key
            }
            return .appRole(roleID: role.value, secretID: secretID, mount: approle, cacheFile: cacheFile)
        }
        if let home = first("HOME")?.value {
            let path = home + "/.vault-token"
            if FileSystem.exists(path) {
                var bytes = try FileSystem.readPrivate(path, what: "token file")
                while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
                if !bytes.isEmpty { return .token(String(decoding: bytes, as: UTF8.self), origin: path) }
            }
        }
        throw VaultError(
            .cannotUnlock,
            "no OpenBao token: set BAO_TOKEN, or BAO_ROLE_ID and BAO_SECRET_ID for AppRole, or log in with 'bao login'")
    }

    /// FNV-1a (64 bits) in hex: names the token cache after the server and role, not a secret.
    private static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
