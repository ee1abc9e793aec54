import VaultCore
import VaultFeatures
import VaultStorage

/// `vault secret-service ACTION`: vault as the Secret Service provider (docs/secret-service-provider.md).
///
/// Each action is one entry of ``SecretServiceAction/all``; an action lives in a file of its own
/// (this file holds `serve`) and adds itself to that table, which the command's operands, help
/// and dispatch derive from.
extension CommandSpec {
    static let secretService = CommandSpec(
        name: "secret-service",
        operands: SecretServiceAction.all.map(\.name).joined(separator: "|") + " ...",
        summary: "be the Secret Service (org.freedesktop.secrets) for other programs",
        details: SecretServiceAction.all.map(\.details).joined(separator: "\n"),
        options: SecretServiceAction.all.flatMap(\.options),
        run: { (invocation) throws(VaultError) in
            let operands = invocation.commandLine.operands + (invocation.commandLine.terminated ?? [])
            let names = SecretServiceAction.all.map(\.name).joined(separator: "|")
            guard let name = operands.first else {
                throw VaultError(.usage, "'vault secret-service' needs an action; usage: vault secret-service \(names)")
            }
            guard let action = SecretServiceAction.all.first(where: { $0.name == name }) else {
                throw VaultError(.usage, "unknown 'vault secret-service' action '\(name)'; use: \(names)")
            }
            return try action.run(invocation, Array(operands.dropFirst()))
        })
}

/// One action of `vault secret-service`.
struct SecretServiceAction: Sendable {
    let name: String
    /// The action's paragraph of the command's help, starting with its usage.
    let details: String
    /// The options only this action takes (the command accepts the union).
    var options: [OptionSpec] = []
    /// Runs the action with the operands after its name.
    let run: @Sendable (Invocation, [String]) throws(VaultError) -> Int32

    /// Every action, in the order the help lists them.
    static let all: [SecretServiceAction] = [.serve, .run, .enable, .disable]
}

extension SecretServiceAction {
    static let serve = SecretServiceAction(
        name: "serve",
        details: """
            'vault secret-service serve' owns org.freedesktop.secrets on the session bus
            (DBUS_SESSION_BUS_ADDRESS) and answers the Secret Service API for every program of this user
            (secret-tool, python keyring, git-credential-libsecret, docker-credential-secretservice),
            until the bus goes away. Items (label, attributes, secret, times) are kept in the vault file
            (or --backend openbao) as secrets of the service org.freedesktop.secrets, inside its
            encryption. The alias 'default' names the collection 'login'. Collections are unlocked while
            the file opens without a person (VAULT_IDENTITY, VAULT_IDENTITY_FILE, VAULT_PASSPHRASE,
            VAULT_PASSPHRASE_FILE, or a key 'vault unlock' cached); it never prompts, and a client's
            unlock prompt is dismissed at once. Needs libgio (GLib) at run time. Exit 2 with
            --backend secret-service (it would talk to itself), 5 when the bus cannot be reached or
            GLib is missing, 7 when another program owns the name.
            """,
        run: { (invocation, operands) throws(VaultError) in
            guard operands.isEmpty else { throw VaultError(.usage, "usage: vault secret-service serve") }
            // The provider never asks a person: a key it cannot find leaves the collections locked.
            let factory = StoreFactory(
                options: invocation.factory.options, configuration: invocation.factory.configuration, prompt: nil)
            let store: any SecretStore
            switch try factory.requestedBackend() {
            case .secretService:
                throw VaultError(
                    .usage,
                    "the provider cannot keep its items in the Secret Service: it would be talking to itself; "
                        + "use --backend file or --backend openbao")
            case .auto, .file: store = try factory.makeFileStore()
            case .openbao: store = try factory.makeStore()
            }
            let server = SecretServiceServer(store: store)
            try server.serve(ready: { StandardIO.error("serving org.freedesktop.secrets from \(store.label)") })
            return ExitStatus.success
        })
}
