/// The command lines around vault's provider: vault's own as a bus starts it, the mark on the
/// activation file that runs it, and dbus-daemon's for `vault secret-service run`'s private bus.
/// These literals are other programs' arguments and a file's contents, not words for people
/// (`LibraryWordingTests` exempts this file).
enum ProviderCommandLine {
    /// `executable [--file FILE] [--backend BACKEND] secret-service serve`.
    static func provider(executable: String, file: String?, backend: String?) -> [String] {
        [executable] + (file.map { ["--file", $0] } ?? []) + (backend.map { ["--backend", $0] } ?? [])
            + ["secret-service", "serve"]
    }

    /// The first line of every activation file vault writes.
    static let activationMarker =
        "# Written by 'vault secret-service enable'; 'vault secret-service disable' removes it."

    /// dbus-daemon in the foreground, configured by `configuration`, printing its address on its
    /// standard output once it listens.
    static func dbusDaemon(_ program: String, configuration: String) -> [String] {
        [program, "--nofork", "--nopidfile", "--config-file=\(configuration)", "--print-address=1"]
    }
}
