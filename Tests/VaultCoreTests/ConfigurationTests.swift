import Testing

@testable import VaultCore
@testable import VaultFeatures
@testable import VaultOpenBao
@testable import VaultStorage

/// The environment is read once into ``Configuration``: one rule for `CI`, one for the folders,
/// `VAULT_TIMEOUT` parsed once, and every factory method reading that value.
@Suite("Configuration read once")
struct ConfigurationTests {
    private static func factory(_ environment: [String: String], atTerminal: Bool = false) -> StoreFactory {
        StoreFactory(
            options: GlobalOptions(), configuration: Configuration(environment: environment, atTerminal: atTerminal),
            prompt: nil)
    }

    @Test(
        "one rule for CI: unset, empty, 0 and false (any case) are not CI; anything else is",
        arguments: [
            (nil, false), ("", false), ("0", false), ("false", false), ("FALSE", false), ("False", false),
            ("true", true), ("1", true), ("yes", true), ("anything", true),
        ] as [(String?, Bool)])
    func ciRule(value: String?, isCI: Bool) throws {
        var environment = ["HOME": "/home/someone", "DISPLAY": ":0"]
        environment["CI"] = value
        let configuration = Configuration(environment: environment, atTerminal: true)
        #expect(configuration.isCI == isCI)
        #expect(Configuration.isCI(value) == isCI)
        // Both uses follow it: the terminal prompt, and the keyring's unlock dialog (which used
        // to take CI=0 as CI while the terminal prompt did not).
        #expect(configuration.allowsPrompts == !isCI)
        #expect(configuration.canAnswerDialogs == !isCI)
        let factory = Self.factory(environment, atTerminal: true)
        #expect(factory.allowsPrompts == !isCI)
        #expect(try factory.promptTimeout() == (isCI ? nil : Configuration.defaultPromptTimeout))
    }

    @Test("dialogs need the tool's person at a terminal and a display; the library asks no isatty")
    func dialogsNeedATerminal() throws {
        let display = ["DISPLAY": ":0", "VAULT_PROMPT_TIMEOUT": "30"]
        #expect(try Self.factory(display, atTerminal: true).promptTimeout() == 30)
        #expect(try Self.factory(display, atTerminal: false).promptTimeout() == nil)
        #expect(try Self.factory(["WAYLAND_DISPLAY": "wayland-0"], atTerminal: true).promptTimeout() == 120)
        #expect(try Self.factory([:], atTerminal: true).promptTimeout() == nil)
        // A bad VAULT_PROMPT_TIMEOUT matters only where a dialog can be answered.
        let bad = ["DISPLAY": ":0", "VAULT_PROMPT_TIMEOUT": "soon"]
        #expect(try Self.factory(bad, atTerminal: false).promptTimeout() == nil)
        expectFailure(.usage) { try Self.factory(bad, atTerminal: true).promptTimeout() }
    }

    @Test("the runtime folder: an absolute XDG_RUNTIME_DIR is used by every owner, a relative one by none")
    func runtimeFolder() throws {
        let base = ["HOME": "/home/someone", "VAULT_FILE": "/data/v.age", "BAO_ADDR": "http://127.0.0.1:1"]
        let appRole = ["BAO_ROLE_ID": "role", "BAO_SECRET_ID": "secret"]
        let jwt = ["BAO_JWT_ROLE": "ci", "BAO_JWT": "header.payload.signature"]

        let absolute = base.merging(["XDG_RUNTIME_DIR": "/run/user/1000"]) { $1 }
        let factory = Self.factory(absolute)
        #expect(factory.configuration.folders.runtime == "/run/user/1000")
        #expect(try factory.tokenSettings().lockDirectory == "/run/user/1000/vault")
        #expect(try factory.tokenSettings().journalDirectory == "/run/user/1000/vault")
        #expect(factory.secretServiceWriteLock() == "/run/user/1000/vault/secret-service.lock")
        #expect(try Self.appRoleCache(absolute.merging(appRole) { $1 })?.hasPrefix("/run/user/1000/vault/") == true)
        #expect(try Self.jwtCache(absolute.merging(jwt) { $1 })?.hasPrefix("/run/user/1000/vault/") == true)

        let relative = base.merging(["XDG_RUNTIME_DIR": "run/user/1000"]) { $1 }
        let ignoring = Self.factory(relative)
        #expect(ignoring.configuration.folders.runtime == nil)
        #expect(try ignoring.tokenSettings().lockDirectory == "/data")
        #expect(try ignoring.tokenSettings().journalDirectory == "/home/someone/.local/state/vault")
        #expect(ignoring.secretServiceWriteLock() == "/home/someone/.cache/vault/secret-service.lock")
        #expect(try Self.appRoleCache(relative.merging(appRole) { $1 }) == nil)
        #expect(try Self.jwtCache(relative.merging(jwt) { $1 }) == nil)
        // Without DBUS_SESSION_BUS_ADDRESS, a relative runtime folder is no session bus either.
        #expect(ignoring.sessionBusProblem()?.code == .unavailable)
    }

    @Test("the other XDG folders: absolute or ignored, then the HOME default")
    func otherFolders() throws {
        let relative = [
            "HOME": "/home/someone", "XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data",
            "XDG_CACHE_HOME": "cache",
        ]
        let defaults = Self.factory(relative)
        #expect(defaults.stateDirectory() == "/home/someone/.local/state/vault")
        #expect(defaults.configDirectory() == "/home/someone/.config/vault")
        #expect(try defaults.filePath() == "/home/someone/.local/share/vault/vault.age")
        #expect(defaults.secretServiceWriteLock() == "/home/someone/.cache/vault/secret-service.lock")

        let named = Self.factory(relative.mapValues { $0.hasPrefix("/") ? $0 : "/x/" + $0 })
        #expect(named.stateDirectory() == "/x/state/vault")
        #expect(named.configDirectory() == "/x/config/vault")
        #expect(try named.filePath() == "/x/data/vault/vault.age")
        #expect(named.secretServiceWriteLock() == "/x/cache/vault/secret-service.lock")
    }

    @Test("VAULT_TIMEOUT is parsed once: every wait reads the one value, a bad one is one usage error")
    func timeoutParsedOnce() throws {
        let environment = ["HOME": "/home/someone", "VAULT_TIMEOUT": "2.5", "BAO_ADDR": "http://127.0.0.1:1"]
        let factory = Self.factory(environment.merging(["BAO_TOKEN": "t"]) { $1 })
        #expect(try factory.configuration.timeout.get() == 2.5)
        #expect(try factory.timeout() == 2.5)
        let tokens = try factory.tokenSettings()
        #expect(tokens.storeRetryBudget == 2.5)
        #expect(tokens.waitLimit == 2.5)
        #expect(try factory.openBaoSettings().timeout == 2.5)
        #expect(try Self.factory([:]).timeout() == Configuration.defaultTimeout)

        for text in ["soon", "0", "-1", "3601"] {
            let bad = Self.factory(["HOME": "/home/someone", "VAULT_TIMEOUT": text])
            let message = "VAULT_TIMEOUT is '\(text)'"
            // Reading the environment never fails; each use of the timeout throws the same error.
            guard case .failure(let error) = bad.configuration.timeout else {
                Issue.record("VAULT_TIMEOUT=\(text) parsed")
                continue
            }
            #expect(error.code == .usage && error.message == message)
            #expect(error.remedy == .giveAccepted(forms: "seconds between 0 and 3600, e.g. 2.5"))
            #expect(throws: error) { try bad.timeout() }
            #expect(throws: error) { try bad.tokenSettings() }
            #expect(throws: error) { try bad.resolvedBackend() }
            #expect(throws: error) { try bad.makeSecretServiceStore() }
        }
    }

    @Test("VAULT_REFRESH_SKEW is a duration in the one grammar, from 0 to 366 days")
    func refreshSkew() throws {
        for (text, seconds) in [("0", 0), ("60", 60), ("2m", 120), ("1h", 3600), ("366d", 31_622_400)]
            as [(String, Int64)]
        {
            let factory = Self.factory(["HOME": "/home/someone", "VAULT_REFRESH_SKEW": text])
            #expect(try factory.tokenSettings().refreshSkew == seconds, "\(text)")
        }
        for text in ["soon", "-1", "367d", "1.5m"] {
            let factory = Self.factory(["HOME": "/home/someone", "VAULT_REFRESH_SKEW": text])
            #expect(
                throws: VaultError(
                    .usage, "VAULT_REFRESH_SKEW is '\(text)'",
                    remedy: .giveAccepted(forms: "0 or a duration up to 366d, like 900, 90s, 15m, 2h, 30d or 2w"))
            ) { try factory.tokenSettings() }
        }
    }

    @Test("resolvedBackend says which rule chose the backend")
    func resolvedReason() throws {
        // No DBUS_SESSION_BUS_ADDRESS and no runtime folder: no bus is reached.
        let home = ["HOME": "/home/someone"]
        func resolved(_ options: GlobalOptions, _ extra: [String: String] = [:]) throws -> ResolvedBackend {
            try StoreFactory(options: options, environment: home.merging(extra) { $1 }, prompt: nil).resolvedBackend()
        }
        #expect(try resolved(GlobalOptions()) == ResolvedBackend(.file, .noSecretService))
        #expect(try resolved(GlobalOptions(file: "/x.age")) == ResolvedBackend(.file, .fileNamed))
        #expect(try resolved(GlobalOptions(), ["VAULT_FILE": "/x.age"]) == ResolvedBackend(.file, .fileNamed))
        #expect(
            try resolved(GlobalOptions(backend: "openbao"))
                == ResolvedBackend(.openbao, .requested(.openbao, byOption: true)))
        #expect(
            try resolved(GlobalOptions(), ["VAULT_BACKEND": "secret-service"])
                == ResolvedBackend(.secretService, .requested(.secretService, byOption: false)))
        #expect(
            try resolved(GlobalOptions(file: "/x.age"), ["VAULT_BACKEND": "auto"])
                == ResolvedBackend(.file, .fileNamed))
    }

    private static func appRoleCache(_ environment: [String: String]) throws -> String? {
        guard case .appRole(_, _, _, let cacheFile) = try factory(environment).openBaoSettings().credentials else {
            Issue.record("not an AppRole login")
            return nil
        }
        return cacheFile
    }

    private static func jwtCache(_ environment: [String: String]) throws -> String? {
        guard case .jwt(let login) = try factory(environment).openBaoSettings().credentials else {
            Issue.record("not a JWT login")
            return nil
        }
        return login.cachePrefix
    }
}
