import VaultSecretService
public import VaultStorage

/// How a bus starts this vault as the Secret Service provider: the program by its absolute path
/// and the store options it was given, as the `Exec` line of a D-Bus activation file
/// (`vault secret-service enable`, and the private bus of `vault secret-service run`).
///
/// The provider is started by the bus, from another folder and often another environment than
/// the shell that wrote the file, so the file is named by its absolute path: the provider serves
/// the file the command that wrote the line would use.
public struct ProviderLaunch: Sendable, Equatable {
    /// The Secret Service's name on the bus.
    public static let busName = SecretServiceNames.bus
    /// The name of the activation file (the bus's own name, so that a user's file overrides a
    /// system one of the same name in dbus-daemon and dbus-broker alike).
    public static let fileName = "org.freedesktop.secrets.service"

    /// The provider's command line, the program first.
    public let arguments: [String]

    /// The command line of `executable` (an absolute path) serving the store `file` names (made
    /// absolute against `workingDirectory`), with `--backend` when one was asked for (`backendInput`
    /// says where: the option or the variable).
    public init(
        executable: String, backend: BackendKind, backendInput: VaultError.Input?, file: String,
        workingDirectory: String
    ) throws(VaultError) {
        var absoluteFile: String?
        switch backend {
        case .secretService:
            throw VaultError(
                .usage, "is '\(backend.name)': a provider keeping its items in the Secret Service would talk to itself",
                input: backendInput ?? .backend,
                remedy: .useOneOf(names: "\(BackendKind.file.name) or \(BackendKind.openbao.name)"))
        case .openbao: break
        case .auto, .file: absoluteFile = file.hasPrefix("/") ? file : workingDirectory + "/" + file
        }
        let arguments = ProviderCommandLine.provider(
            executable: executable, file: absoluteFile, backend: backendInput != nil ? backend.name : nil)
        for argument in arguments where argument.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw VaultError(
                .usage, "an activation file cannot name a path with a line break: \(argument.debugDescription)")
        }
        self.arguments = arguments
    }

    /// The `Exec=` value: each argument quoted where the bus's shell-like parser needs it.
    public var execLine: String { arguments.map(Self.quoted).joined(separator: " ") }

    /// The first line of every activation file vault writes; `disable` removes only a file that
    /// starts with it.
    public static let marker = ProviderCommandLine.activationMarker

    /// The activation file's text.
    public var activationFile: String {
        "\(Self.marker)\n[D-BUS Service]\nName=\(Self.busName)\nExec=\(execLine)\n"
    }

    /// `argument` as the bus's parser reads it back (dbus's `_dbus_shell_parse_argv`, after
    /// GLib's `g_shell_parse_argv`): bare when it holds only safe characters, else single-quoted,
    /// a quote written as `'\''`.
    static func quoted(_ argument: String) -> String {
        let safe = argument.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+=:,@".contains($0)) }
        if safe, !argument.isEmpty { return argument }
        return "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
