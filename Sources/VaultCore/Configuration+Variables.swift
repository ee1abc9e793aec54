import VaultFeatures
import VaultStorage
import VaultSystem

/// The typed values of vault's own variables, and the rules that parse them (each error as it
/// was when the code that uses the value read the variable itself).
extension Configuration {
    /// A variable's value with the name it was found under: messages name the one the user set
    /// (`BAO_TOKEN` or its alias `VAULT_TOKEN`, `VAULT_IDENTITY` or `VAULT_TO_IDENTITY`).
    struct Named<Value: Sendable>: Sendable {
        var name: String
        var value: Value
    }

    /// Where `VAULT_BACKEND`'s errors say the value came from.
    static let backendInput = VaultError.Input.variable(VaultVariable.backend.name)

    /// `VAULT_FALLBACK`: its text and the store it names.
    struct Fallback: Sendable {
        /// `VAULT_FALLBACK=TEXT`, as messages show the setting.
        var setting: String
        var spec: Parsed<BackendSpec>

        init(text: String) {
            let name = VaultVariable.fallback.name
            setting = name + "=" + text
            spec = Parsed { () throws(VaultError) in try BackendSpec(parsing: text, from: .variable(name)) }
        }
    }

    /// The key variables of one vault file, in the order they are looked up: identity, identity
    /// file, passphrase, passphrase file (``VaultVariables/unlock`` or
    /// ``VaultVariables/destinationUnlock``).
    ///
    /// A class, as ``OpenBaoVariables``: every copy of the factory shares one.
    final class FileKeyVariables: Sendable {
        /// The four names, for messages that list them.
        let names: [String]
        let identity: Named<String>?
        let identityFile: Named<String>?
        let passphrase: Named<String>?
        let passphraseFile: Named<String>?

        init(names: [String], in environment: [String: String]) {
            func named(_ index: Int) -> Named<String>? {
                Configuration.value(names[index], in: environment).map { Named(name: names[index], value: $0) }
            }
            self.names = names
            identity = named(0)
            identityFile = named(1)
            passphrase = named(2)
            passphraseFile = named(3)
        }

        /// The first variable set, if any.
        var first: String? { [identity, identityFile, passphrase, passphraseFile].lazy.compactMap { $0?.name }.first }
    }

    /// The OpenBao variables (docs/openbao.md): each `BAO_*` one, else its `VAULT_*` alias.
    ///
    /// A class: the factory is a value copied into many calls, and copying sixteen optional
    /// strings with it made the release binary 45 KB larger than copying one reference.
    final class OpenBaoVariables: Sendable {
        let address: Named<String>?
        let token: Named<String>?
        let jwt: Named<String>?
        let jwtFile: Named<String>?
        let jwtRole: Named<String>?
        /// `BAO_JWT_MOUNT` without trailing slashes (default `jwt`).
        let jwtMount: String
        let jwtAudience: String?
        let roleID: Named<String>?
        let secretID: String?
        let secretIDFile: String?
        /// `BAO_APPROLE_MOUNT` (default `approle`).
        let appRoleMount: String
        /// `BAO_KV_MOUNT` (default `secret`).
        let kvMount: String
        let caCertificate: String?
        /// `BAO_SKIP_VERIFY`: whether it says yes (`1`, `true`, `yes`, `on`, `t`, in any case).
        let skipVerify: Named<Bool>?
        /// `ACTIONS_ID_TOKEN_REQUEST_URL` and `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, what a GitHub or
        /// Forgejo Actions job asks for its id token with.
        let actionsTokenURL: String?
        let actionsTokenCredential: String?

        init(environment: [String: String]) {
            func first(_ variable: VaultVariable) -> Named<String>? {
                for name in [variable.name] + (variable.aliasName.map { [$0] } ?? []) {
                    if let value = Configuration.value(name, in: environment) { return Named(name: name, value: value) }
                }
                return nil
            }
            address = first(.baoAddress)
            token = first(.baoToken)
            jwt = first(.baoJWT)
            jwtFile = first(.baoJWTFile)
            jwtRole = first(.baoJWTRole)
            var mount = first(.baoJWTMount)?.value ?? "jwt"
            while mount.hasSuffix("/") { mount.removeLast() }
            jwtMount = mount
            jwtAudience = first(.baoJWTAudience)?.value
            roleID = first(.baoRoleID)
            secretID = first(.baoSecretID)?.value
            secretIDFile = first(.baoSecretIDFile)?.value
            appRoleMount = first(.baoAppRoleMount)?.value ?? "approle"
            kvMount = first(.baoKVMount)?.value ?? "secret"
            caCertificate = first(.baoCACert)?.value
            skipVerify = first(.baoSkipVerify).map {
                Named(name: $0.name, value: ["1", "true", "yes", "on", "t"].contains($0.value.lowercased()))
            }
            actionsTokenURL = first(.actionsTokenURL)?.value
            actionsTokenCredential = first(.actionsTokenCredential)?.value
        }
    }

    /// The scrypt work factor (log2 N) for new passphrase vaults: 10 to 22, default 18.
    static func workFactor(_ text: String?) -> Parsed<Int> {
        guard let text else { return .success(18) }
        guard let factor = Int(text), (10...22).contains(factor) else {
            return .failure(
                VaultError(
                    .usage, "\(VaultVariable.scryptWorkFactor.name) is '\(text)'",
                    remedy: .giveAccepted(forms: "a whole number from 10 to 22")))
        }
        return .success(factor)
    }

    /// Seconds a living token is refreshed early: a duration (``DurationText``) from 0 to a
    /// year, default 60.
    static func refreshSkew(_ text: String?) -> Parsed<Int64> {
        guard let text else { return .success(TokenSettings.defaultRefreshSkew) }
        return Parsed { () throws(VaultError) in
            try DurationText.seconds(parsing: text, what: VaultVariable.refreshSkew.name, in: 0...366 * 86_400)
        }
    }

    /// Comma-separated origins, each optionally with a path prefix; empty entries are skipped.
    static func refreshOrigins(_ text: String?) -> Parsed<Set<String>> {
        Parsed { () throws(VaultError) in
            var origins = Set<String>()
            for entry in (text ?? "").split(separator: ",") {
                let text = entry.trimmingSpaces
                if text.isEmpty { continue }
                guard let entry = TokenURL.listEntry(text) else {
                    throw VaultError(
                        .usage, "\(VaultVariable.refreshOrigins.name) holds '\(HTTPURL.origin(of: text))'",
                        remedy: .giveAccepted(
                            forms:
                                "origins separated by commas, e.g. https://oauth2.example.com, or an origin and a path prefix, e.g. https://login.example.com/tenant"
                        ))
                }
                origins.insert(entry)
            }
            return origins
        }
    }

    /// `1` lets tokens go over plain http to another machine (OAuth token endpoints and
    /// `BAO_ADDR` alike); unset or `0` does not; anything else is a usage error.
    static func allowsPlainHTTP(_ text: String?) -> Parsed<Bool> {
        switch text {
        case nil, "0": return .success(false)
        case "1": return .success(true)
        case let text?:
            return .failure(
                VaultError(
                    .usage, "\(VaultVariable.allowHTTP.name) is '\(text)'",
                    remedy: .giveAccepted(forms: "1 to allow plain http, or no value to refuse it")))
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
