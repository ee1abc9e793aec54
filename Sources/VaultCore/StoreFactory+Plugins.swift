import VaultAge
import VaultAgeFile
import VaultStorage

extension StoreFactory {
    /// How vault runs age plugins: programs from the absolute folders of `PATH`, given vault's
    /// environment without key material, each conversation bounded.
    ///
    /// A person at the terminal may need to touch a key, so there the plugin's own work is
    /// bounded by `VAULT_PROMPT_TIMEOUT` (default 120 s) and the plugin's standard error is
    /// vault's (its own hints, such as "touch your key", reach the person). Elsewhere (no
    /// terminal, or `CI`) no one can touch anything: its work is bounded by `VAULT_TIMEOUT`
    /// (default 5 s), and the plugin's standard error goes to /dev/null, so that vault's failure
    /// stays one line. Each question a person answers (a PIN, a confirmation) adds
    /// `VAULT_PROMPT_TIMEOUT`; nothing else does.
    ///
    /// A bad value of either variable is reported when a plugin is about to start, not before:
    /// a command that runs no plugin never fails on it.
    func pluginHost() -> PluginHost {
        let person = configuration.atTerminal && configuration.allowsPrompts
        let environment = self.environment
        let launcher = PluginProcessLauncher(
            searchPath: configuration.searchPath, environment: Self.childEnvironment(of: environment),
            waitLimit: person ? configuration.promptTimeout : configuration.timeout,
            waitLimitName: (person ? VaultVariable.promptTimeout : VaultVariable.timeout).name,
            answerLimit: promptSeconds,
            keepErrorOutput: person)
        return PluginHost(launcher: launcher, prompts: pluginPrompts)
    }

    /// Seconds a person is given to answer a prompt: `VAULT_PROMPT_TIMEOUT`, else the default.
    public var promptSeconds: Double {
        (try? configuration.promptTimeout.get()) ?? Configuration.defaultPromptTimeout
    }
}
