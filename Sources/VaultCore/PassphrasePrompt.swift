public import VaultSecureBytes
public import VaultStorage

/// Asks the person at the terminal for a passphrase.
///
/// Supplied by the executable (the library never touches the terminal). Returns `nil` when there
/// is no terminal to ask on, so that nothing ever waits for input that cannot come.
public typealias PassphrasePrompt = @Sendable (_ message: String, _ confirm: Bool) throws(VaultError) -> SecureBytes?
