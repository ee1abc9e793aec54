import VaultAge

extension StoreFactory {
    /// How vault runs age plugins: programs from the absolute folders of `PATH`, given vault's
    /// environment without key material, each wait for the plugin bounded.
    ///
    /// A person at the terminal may need to touch a key or type a PIN, so there each wait is
    /// bounded by `VAULT_PROMPT_TIMEOUT` (default 120 s) and the plugin's standard error is
    /// vault's (its own hints reach the person). Elsewhere (no terminal, or `CI`) no one can
    /// touch anything: each wait is bounded by `VAULT_TIMEOUT` (default 5 s), and the plugin's
    /// standard error goes to /dev/null, so that vault's failure stays one line.
    ///
    /// A bad value of either variable is reported when a plugin is about to start, not before:
    /// a command that runs no plugin never fails on it.
    func pluginHost() -> PluginHost {
        let person = configuration.atTerminal && configuration.allowsPrompts
        let environment = self.environment
        let launcher = PluginProcessLauncher(
            searchPath: value("PATH"), environment: Self.childEnvironment(of: environment),
            waitLimit: person ? configuration.promptTimeout : configuration.timeout,
            waitLimitName: person ? "VAULT_PROMPT_TIMEOUT" : "VAULT_TIMEOUT", keepErrorOutput: person)
        return PluginHost(launcher: launcher, prompts: pluginPrompts)
    }

    /// Seconds a person is given to answer a prompt: `VAULT_PROMPT_TIMEOUT`, else the default.
    public var promptSeconds: Double {
        (try? configuration.promptTimeout.get()) ?? Configuration.defaultPromptTimeout
    }
}
