import VaultCore

/// `vault secret-service enable [--force]` and `disable`: the user's session bus starts this vault
/// as the Secret Service when a program first asks for it (docs/secret-service-provider.md).
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
        if let aside = enabled.setAside { StandardIO.error("kept the file it replaced as \(aside); 'disable' puts it back") }
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
            if let restored { StandardIO.error("put back the file enable had set aside as \(restored)") }
        }
        return ExitStatus.success
    }
}
