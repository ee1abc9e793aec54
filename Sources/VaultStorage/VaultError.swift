/// The one error type of the vault library.
///
/// Every failure the library reports is a `VaultError`. Its ``Code`` is stable and decides the
/// exit status of the command-line tool; its ``message`` is one line that says what went wrong,
/// and its ``remedy``, where there is one, says as data what the caller can do: a front end words
/// it (the command-line tool names its flags), the library never does; so does its ``input``, the
/// input given that the message is about. A message never contains a secret value.
public struct VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. Each code maps to one documented exit status.
    public enum Code: Sendable, Equatable, CaseIterable {
        /// The named secret does not exist.
        case notFound
        /// The command line, a name or an input value is not acceptable.
        case usage
        /// The secret exists but has expired.
        case expired
        /// The store could not be unlocked: wrong passphrase or identity, a locked keyring,
        /// or no way to ask for the unlock material.
        case cannotUnlock
        /// The backend cannot be reached or loaded.
        case unavailable
        /// The store failed an integrity check or is not a vault store.
        case damaged
        /// An operation would overwrite a different existing value.
        case conflict
        /// Anything else (I/O errors, resource limits).
        case other
    }

    /// The kind of failure.
    public let code: Code
    /// A one-line, human-readable reason, never containing a secret, a command-line flag nor a
    /// `vault` command (the tool words the ``remedy``).
    public let message: String
    /// What the caller can do about it, if the library knows.
    public let remedy: Remedy?
    /// The input the message is about, if it is about one the caller gave.
    public let input: Input?
    /// The error number, when a system call failed.
    public let errno: Errno?

    /// Creates an error of the given kind.
    public init(_ code: Code, _ message: String, input: Input? = nil, remedy: Remedy? = nil, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.input = input
        self.remedy = remedy
        self.errno = errno
    }

    /// The message, after the input it is about in the library's words.
    public var description: String { input.map { "\($0.description) \(message)" } ?? message }
}

extension VaultError {
    package static func notFound(_ name: SecretName) -> VaultError {
        VaultError(.notFound, "no secret named '\(name.account)' in service '\(name.service)'")
    }
}
