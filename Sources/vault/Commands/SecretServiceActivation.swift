import VaultCore
import VaultStorage

/// `vault secret-service enable [--force]` and `disable`: the user's session bus starts this vault
/// as the Secret Service when a program first asks for it (docs/secret-service-provider.md).
extension SecretServiceAction {
    static let enable = SecretServiceAction(
        name: "enable",
        details: """
            'vault secret-service enable [--force]' writes a D-Bus activation file for
            org.freedesktop.secrets in $XDG_DATA_HOME/dbus-1/services (default ~/.local/share/dbus-1/services),
            so that the user's session bus starts this vault (by its absolute path, with the file this
            command uses, and --backend if given) when a program asks for the Secret Service. Exit 7 if
            another provider owns the name on the bus or is installed in the user's own activation
            folders, unless --force (a file of another's in vault's place is kept as NAME.before-vault).
            A system-wide provider (GNOME Keyring's file in /usr/share) is overridden for this user and
            named. 'vault doctor' says whether vault is the provider.
            """,
        options: [
            OptionSpec(.force, "enable: write the activation file even where another provider runs or is installed")
        ],
        run: { (invocation, operands) throws(VaultError) in
            guard operands.isEmpty else { throw VaultError(.usage, "usage: vault secret-service enable [--force]") }
            return try SecretServiceActivation.enable(invocation)
        })

    static let disable = SecretServiceAction(
        name: "disable",
        details: """
            'vault secret-service disable' removes that activation file, and only a file vault wrote,
            putting back the file enable set aside.
            """,
        run: { (invocation, operands) throws(VaultError) in
            guard operands.isEmpty else { throw VaultError(.usage, "usage: vault secret-service disable") }
            return try SecretServiceActivation.disable(invocation)
        })
}

/// The two actions' work.
enum SecretServiceActivation {
    /// Writes the activation file, unless another provider runs or is installed for the user.
    static func enable(_ invocation: Invocation) throws(VaultError) -> Int32 {
        let factory = invocation.factory
        let force = invocation.flag(.force)
        let launch = try factory.providerLaunch(executable: try ThisProgram.path())
        if let running = factory.runningProvider(), !running.isVault, !force {
            throw VaultError(
                .conflict, "another Secret Service provider runs on the session bus: \(running.name)",
                remedy: .replaceProvider)
        }
        let activation = try factory.providerActivation()
        let enabled = try activation.enable(launch, force: force)
        StandardIO.error("wrote \(activation.path): the session bus starts \(launch.execLine)")
        _ = try factory.reloadSessionBus()
        if let aside = enabled.setAside {
            StandardIO.error("kept the file it replaced as \(aside); 'disable' puts it back")
        }
        for other in enabled.competing {
            StandardIO.error("left \(other.path) (starts \(other.exec)): remove it if the bus picks it over vault's")
        }
        for other in enabled.overridden {
            StandardIO.error("for this user it overrides \(other.path) (starts \(other.exec))")
        }
        if let running = factory.runningProvider(), !running.isVault {
            StandardIO.error("\(running.name) still owns the name until it stops")
        }
        return ExitStatus.success
    }

    /// Removes vault's activation file (never another's).
    static func disable(_ invocation: Invocation) throws(VaultError) -> Int32 {
        let activation = try invocation.factory.providerActivation()
        switch try activation.disable() {
        case .none: StandardIO.error("no activation file of vault's at \(activation.path): nothing to remove")
        case .removed(let restored):
            StandardIO.error("removed \(activation.path)")
            _ = try invocation.factory.reloadSessionBus()
            if let restored { StandardIO.error("put back the file enable had set aside as \(restored)") }
        }
        return ExitStatus.success
    }
}
