/// What the age-plugin protocol names on a plugin's command line.
public enum PluginCommandLine {
    /// The one argument a plugin is started with: `--age-plugin=STATE_MACHINE`.
    public static func argument(stateMachine: String) -> String { "--age-plugin=" + stateMachine }
}
