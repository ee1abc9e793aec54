public import VaultSecureBytes

/// What a plugin needs from the program that runs it: a way to start it and a person to ask.
///
/// VaultAge speaks the protocol but starts no process and touches no terminal (it is a library
/// of pure format code); VaultCore supplies the ``PluginLauncher`` (its one way to spawn a
/// program) and the executable supplies the ``PluginPrompts`` (it owns the terminal). Tests
/// supply both in memory.
public struct PluginHost: Sendable {
    /// Starts `age-plugin-NAME`.
    public var launcher: any PluginLauncher
    /// Answers the plugin's questions.
    public var prompts: PluginPrompts

    public init(launcher: any PluginLauncher, prompts: PluginPrompts) {
        self.launcher = launcher
        self.prompts = prompts
    }
}

/// Starts plugin programs.
public protocol PluginLauncher: Sendable {
    /// Starts `age-plugin-NAME --age-plugin=STATE_MACHINE`; throws `.plugin` when it cannot (the
    /// message names `age-plugin-NAME`).
    func start(plugin name: String, stateMachine: String) throws(AgeError) -> any PluginChannel
}

/// A running plugin: its standard input and output.
public protocol PluginChannel: AnyObject {
    /// Writes all of `bytes` to the plugin's standard input.
    func send(_ bytes: SecureBytes) throws(AgeError)
    /// The next bytes the plugin wrote to its standard output, or none once it closed it;
    /// throws `.plugin` when the plugin takes longer than the launcher allows.
    func receive() throws(AgeError) -> SecureBytes
    /// Ends the conversation and the process; `cleanly` when the protocol ended with `done`
    /// (the plugin is given time to exit), otherwise it is stopped at once.
    func finish(cleanly: Bool)
    /// A person answered one of the plugin's questions: the conversation, which has one
    /// deadline for the plugin's own work, may take the time a person is given to answer once
    /// more. Nothing else extends it (a message, a `fail`), so a plugin that keeps talking is
    /// still stopped.
    func personAnswered()
}

/// Answers to a plugin's questions: a message, a confirmation, a value. Each returns nil when
/// no one can answer (no terminal, `CI`, the prompt timed out): the plugin is told `fail`.
public struct PluginPrompts: Sendable {
    /// Shows `message` from plugin `name`; false if it cannot be shown.
    public var show: @Sendable (_ name: String, _ message: String) -> Bool
    /// Asks for a value (`secret`: without echo); nil if no one can answer.
    public var ask: @Sendable (_ name: String, _ message: String, _ secret: Bool) -> SecureBytes?
    /// Asks to choose `yes` or `no` (no: nil when only one choice is offered); nil if no one can answer.
    public var confirm: @Sendable (_ name: String, _ message: String, _ yes: String, _ no: String?) -> Bool?

    public init(
        show: @escaping @Sendable (_ name: String, _ message: String) -> Bool,
        ask: @escaping @Sendable (_ name: String, _ message: String, _ secret: Bool) -> SecureBytes?,
        confirm: @escaping @Sendable (_ name: String, _ message: String, _ yes: String, _ no: String?) -> Bool?
    ) {
        self.show = show
        self.ask = ask
        self.confirm = confirm
    }

    /// No one to ask: every question is answered `fail`.
    public static let nobody = PluginPrompts(
        show: { _, _ in false }, ask: { _, _, _ in nil }, confirm: { _, _, _, _ in nil })
}
