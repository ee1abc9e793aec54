/// The name of an option, spelled `--name` on the command line. Commands declare and look up
/// their options through these members, never through a string, so that a misspelt name does not
/// compile and a renamed option cannot be missed.
struct OptionName: Hashable, Sendable, CustomStringConvertible {
    /// The name as typed after `--`.
    let spelling: String

    init(_ spelling: String) { self.spelling = spelling }

    var description: String { spelling }
}

extension OptionName {
    // Global options (any command).
    static let backend = OptionName("backend")
    static let file = OptionName("file")
    static let service = OptionName("service")
    static let help = OptionName("help")
    static let version = OptionName("version")

    // set, get, ls, show.
    static let expiresIn = OptionName("expires-in")
    static let expiresAt = OptionName("expires-at")
    static let refreshCommand = OptionName("refresh-command")
    static let allowExpired = OptionName("allow-expired")
    static let allowEmpty = OptionName("allow-empty")
    static let json = OptionName("json")
    static let long = OptionName("long")
    static let expired = OptionName("expired")
    static let all = OptionName("all")

    // exec, inject.
    static let env = OptionName("env")
    static let envFile = OptionName("env-file")
    static let mask = OptionName("mask")
    static let noMask = OptionName("no-mask")
    static let input = OptionName("in")
    static let output = OptionName("out")

    // import, export.
    static let format = OptionName("format")
    static let overwrite = OptionName("overwrite")

    // otp.
    static let minValid = OptionName("min-valid")

    // init, rekey.
    static let passphrase = OptionName("passphrase")
    static let recipient = OptionName("recipient")
    static let recipientsFile = OptionName("recipients-file")

    // keygen.
    static let pq = OptionName("pq")

    // migrate.
    static let from = OptionName("from")
    static let to = OptionName("to")
    static let dryRun = OptionName("dry-run")
    static let keepSource = OptionName("keep-source")

    // oauth.
    static let deviceURL = OptionName("device-url")
    static let tokenURL = OptionName("token-url")
    static let clientID = OptionName("client-id")
    static let clientSecretName = OptionName("client-secret-name")
    static let scope = OptionName("scope")

    // `unlock`
    static let duration = OptionName("for")
    // vault secret-service enable
    static let force = OptionName("force")
}

/// What a shell completes for a word of the command line: declared with each option and each
/// command's operands, never read off the help text (swift-argument-parser's `CompletionKind`).
enum CompletionKind: Equatable, Sendable {
    /// Free text: nothing to offer.
    case text
    /// One of these words.
    case list([String])
    /// A file name.
    case file
    /// A secret name of the current store (listed with `vault ls`).
    case secretName
    /// A vault command.
    case command
    /// A program and its arguments (`exec -- COMMAND [ARGS...]`).
    case program
}
