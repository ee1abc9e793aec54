import VaultCore

/// `vault secret-service ACTION`: vault as the Secret Service (docs/secret-service-provider.md).
extension CommandSpec {
    static let secretService = CommandSpec(
        name: "secret-service", operands: "run [--] COMMAND...|enable|disable", operandCompletion: .program,
        summary: "be the Secret Service other programs keep their credentials in",
        details: """
            'vault secret-service run [--] COMMAND [ARGS...]' (containers, CI) starts a private session
            bus (the system's dbus-daemon) whose Secret Service is this vault, started by the bus when
            COMMAND first asks for it, runs COMMAND on it with DBUS_SESSION_BUS_ADDRESS set, and stops
            the bus and the provider when COMMAND ends, also when COMMAND is killed; if vault itself is
            killed, the kernel stops the bus. Its exit status is COMMAND's (128 + N when signal N killed
            it; 127 or 126 if it cannot start). COMMAND runs in the foreground, without vault's key
            variables; the provider gets them. No X11 or DISPLAY is needed.
            'vault secret-service enable' writes a D-Bus activation file for org.freedesktop.secrets in
            $XDG_DATA_HOME/dbus-1/services (default ~/.local/share/dbus-1/services), so that the user's
            session bus starts this vault (by its absolute path, with the file this command uses and
            --backend if given) when a program asks for the Secret Service. Exit 7 if another provider
            owns the name on the bus or is installed in the user's own activation folders, unless
            --force (a file of another's in vault's place is kept as NAME.before-vault). A system-wide
            provider (GNOME Keyring's file in /usr/share) is overridden for this user and named.
            'vault secret-service disable' removes that file, and only a file vault wrote, putting back
            one enable set aside. 'vault doctor' says whether vault is the provider.
            """,
        options: [
            OptionSpec(.force, "enable: write the activation file even where another provider runs or is installed")
        ],
        run: { (invocation) throws(VaultError) in
            let operands = invocation.commandLine.operands
            guard let action = operands.first ?? invocation.commandLine.terminated?.first else {
                throw VaultError(.usage, "'vault secret-service' needs an action; usage: vault secret-service run|enable|disable")
            }
            switch action {
            case "run":
                let command = Array(operands.dropFirst()) + (invocation.commandLine.terminated ?? [])
                return try SecretServiceRun.run(invocation, command: command)
            case "enable", "disable":
                guard operands.count == 1, invocation.commandLine.terminated == nil else {
                    throw VaultError(.usage, "'vault secret-service \(action)' takes no operand")
                }
                if action == "disable" { return try SecretServiceActivation.disable(invocation) }
                return try SecretServiceActivation.enable(invocation)
            default:
                throw VaultError(
                    .usage, "unknown 'vault secret-service' action \(shown(action, position: 1)); use: run, enable or disable")
            }
        })
}
