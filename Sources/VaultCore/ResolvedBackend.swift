/// The backend the options and environment select, and the rule that selected it: one answer
/// for the commands that use it and for `vault doctor`, which prints the reason.
public struct ResolvedBackend: Sendable, Equatable {
    /// The rule that picked the backend.
    public enum Reason: Sendable, Equatable {
        /// `auto`, and a vault file was named (by option or variable).
        case fileNamed
        /// `auto`, and a Secret Service answers.
        case secretServiceAnswers
        /// `auto`, and there is no Secret Service, so the file.
        case noSecretService
        /// `auto`, and a Secret Service is there but cannot be used now: vault still uses it.
        case secretServiceUnusable
        /// The backend was asked for by name: by option when `byOption`, else by variable.
        case requested(BackendKind, byOption: Bool)
    }

    /// The backend: never `auto`.
    public var kind: BackendKind
    /// Why it was chosen.
    public var reason: Reason

    public init(_ kind: BackendKind, _ reason: Reason) {
        self.kind = kind
        self.reason = reason
    }
}
