public import VaultFeatures
public import VaultStorage
import VaultSystem

/// The glue for living tokens (docs/tokens.md): the variables that govern refreshes.
extension StoreFactory {
    /// `VAULT_REFRESH_SKEW` (a duration, ``DurationText``: default 60 seconds, 0 allowed), the lock and journal directories,
    /// the environment a refresh command runs with, and the OAuth client refreshes use.
    public func tokenSettings() throws(VaultError) -> TokenSettings {
        let skew = try configuration.refreshSkew.get()
        let directory: String?
        let journalDirectory: String?
        if let runtime = configuration.folders.vaultRuntime {
            directory = runtime
            journalDirectory = runtime
        } else {
            directory = (try? filePath()).map { FileSystem.directory(of: $0) }
            // The journal holds secrets: never beside a vault file that may be shared or synced.
            journalDirectory = stateDirectory()
        }
        let wait = try timeout()
        let environment = self.environment
        var settings = TokenSettings(
            refreshSkew: skew, lockDirectory: directory, journalDirectory: journalDirectory,
            storeRetryBudget: wait,
            commandEnvironment: Self.childEnvironment(of: environment), endpoint: try oauthClient(),
            approval: try refreshApproval())
        settings.waitLimit = wait
        return settings
    }

    /// The device login of `vault oauth login` (RFC 8628) for `client` at `deviceURL`.
    public func deviceLogin(_ client: OAuthClientConfiguration, deviceURL: String) throws(VaultError) -> DeviceLogin {
        DeviceLogin(client: client, deviceURL: deviceURL, oauth: try oauthClient())
    }

    /// OAuth over the HTTP layer (libcurl is loaded only when a request is sent), with proxies
    /// from this environment and `VAULT_TIMEOUT` for each exchange.
    private func oauthClient() throws(VaultError) -> OAuthClient {
        OAuthClient(http: HTTPClient(HTTPClient.Configuration(proxies: configuration.proxies)), timeout: try timeout())
    }

    /// What a program vault starts (a refresh command, an age plugin) is given: `environment`
    /// without the variables that hold key material.
    static func childEnvironment(of environment: [String: String]) -> [String: String] {
        environment.filter { !holdsKeyMaterial($0.key) }
    }

    /// Whether a variable holds a vault's key material or names a file holding it
    /// (``VaultVariables/keyMaterial``): a child never sees those. Compared as bytes.
    static func holdsKeyMaterial(_ variable: String) -> Bool {
        VaultVariables.keyMaterial.contains { $0.utf8.elementsEqual(variable.utf8) }
    }
}
