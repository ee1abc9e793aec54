extension VaultError {
    /// What the caller can do about a failure, as data. The library says what happened in
    /// ``VaultError/message``; the front end words the remedy in its own terms (the command-line
    /// tool names the flag or variable that does it).
    public enum Remedy: Sendable, Equatable {
        /// The value has expired: set a new one, or read it anyway (`allowExpired`).
        case allowExpired
        /// `account` holds a one-time code seed, which is never handed out as a value: ask for a
        /// code instead (``Vault/oneTimeCode(_:minValid:clock:)``).
        case askForOneTimeCode(account: String)
        /// `account` holds a plain value, not a one-time code seed: store an otpauth URI as it
        /// (``Vault/addOneTimeCode(_:uri:)``).
        case addOneTimeCode(account: String)
        /// Some secrets differ in the migration's destination: the migration can replace them
        /// (`Migration.Options.overwrite`).
        case overwriteMigrated
        /// Some imported secrets differ from the stored ones: the import can replace them
        /// (`Vault.importSecrets(_:overwrite:)`).
        case overwriteImported
        /// The vault file named is not a regular file: name one that is.
        case nameRegularFile
        /// No default vault file can be derived: name the vault file explicitly.
        case nameVaultFile
        /// The vault file is a symbolic link to nothing: create its target, or name another file.
        case createLinkTarget
        /// The dotenv format cannot hold this secret: the JSON format can.
        case useJSONFormat
        /// A variable derived from a secret's name is not allowed: bind it explicitly.
        case bindExplicitly
        /// Two secrets' names derive the same variable: bind one of them explicitly.
        case bindOneExplicitly
        /// No variable name can be derived from the name `account`: bind one to it explicitly.
        case bindVariable(account: String)
        /// The token server rejected the refresh token of `account`: log in again to get a new one.
        case logInAgain(account: String)
        /// The token `account` has no refresh token (or no token endpoint): log in to get one.
        case logIn(account: String)
        /// The refresh settings stored beside a token are damaged: log in again, or store the
        /// token again.
        case storeTokenAgain
        /// The client secret `name` a token's refresh needs is not stored: store it.
        case storeClientSecret(name: String)
        /// The refresh of `account` was not approved on this machine, or its target changed: look
        /// at what it would send where, then approve it for this machine; when `orListOrigin`, listing
        /// the token endpoint's origin among the machine's trusted origins approves it too.
        case trustRefresh(account: String, orListOrigin: Bool)
        /// The vault file's recipients changed since this user last wrote it: check who changed
        /// them, then trust the new header.
        case trustHeader
        /// A vault file exists already: change its keys by rekeying it, not by creating it again.
        case rekey
        /// The Secret Service provider answered in a way vault does not expect: run the diagnosis,
        /// and report it (to the provider when `toProvider`: it sent a malformed answer).
        case diagnoseAndReport(toProvider: Bool)
        /// The Secret Service failed for a reason vault cannot tell: retry, or run the diagnosis.
        case retryOrDiagnose
        /// The Secret Service provider holds the secrets back until its user approves this
        /// program (KeePassXC's "confirm access"): approve it in the provider's dialog, which needs
        /// someone at the desktop, or turn the confirmation off in the provider, then retry.
        case approveInProvider
        /// The keyring is locked and its provider asks a person to unlock it: unlock it in the
        /// provider (or by logging in), or run again where someone can answer the provider's dialog.
        case unlockKeyringOrAnswerDialog
        /// The provider's access request (KeePassXC's) went unanswered or was declined: run again
        /// and allow it; when `morePromptTime`, it was not answered in time, and a longer prompt
        /// time-out gives the person more.
        case allowAccessRequest(morePromptTime: Bool)
        /// An SSH key in another format than OpenSSH's (PEM): convert it, the file at `path`
        /// when the key came from one.
        case convertSSHKey(path: String?)
        /// An SSH key encrypted with a cipher vault does not read: encrypt it again with
        /// aes256-ctr, the file at `path` when the key came from one.
        case reencryptSSHKey(path: String?)
        /// A hardware key's tagged recipient is not read: give its age plugin's recipient.
        case usePluginRecipient
        /// The failure was of the moment (a connection lost, another writer at the same time, a
        /// server still busy): the same operation may succeed if tried again.
        case retry
        /// The value given is not accepted; `forms` says, as data, which are ("session or user",
        /// "a whole number from 10 to 22"): give one of them.
        case giveAccepted(forms: String)
        /// The name given is not one of the names spelled out in `names` ("auto, file or
        /// openbao"): use one of them.
        case useOneOf(names: String)
        /// What is missing comes from one of these environment variables: set one.
        case setVariable(oneOf: [String])
        /// The failure depends on something outside vault, named as data ("BAO_ADDR and the
        /// server", "the clocks"): look at it.
        case check(String)
        /// A file or folder vault keeps secrets in, or reads key material from, is open to others:
        /// give it `mode` (chmod's "600", "700").
        case restrictMode(path: String, mode: String)
        /// Root does not replace another user's file with secrets: remove that file, or write
        /// elsewhere.
        case removeForeignFile
        /// Another Secret Service provider runs or is installed for the user: stop or remove it,
        /// or make vault the provider anyway.
        case replaceProvider
        /// A program the tool needs to start (a D-Bus daemon) is not installed: install it.
        case installProgram(name: String)
        /// An address vault would send tokens to is plain http on another machine: use https,
        /// or allow plain http explicitly.
        case useHTTPS
        /// A folder was named where a file is expected: name the file in it.
        case nameFileItself
        /// The keyring is locked: unlock it (by logging in, or in the provider) and retry.
        case unlockKeyring
        /// The provider acknowledged a write it did not keep: unlock the keyring in the provider,
        /// or restart the provider, and retry.
        case unlockKeyringOrRestartProvider
        /// The Secret Service did not answer in time: the provider may be showing a dialog that
        /// waits for an answer, or the time-out is too short.
        case answerDialogOrRaiseTimeout
        /// There is no session bus here: the Secret Service is reached from a desktop session
        /// (and the file backend needs none).
        case runInDesktopSession
        /// No program provides the Secret Service: start one (or use the file backend).
        case startProvider
        /// The provider has no default keyring: create one in it (or use the file backend).
        case createDefaultKeyring
        /// KWallet cannot encrypt for the transfer without QCA's OpenSSL plug-in: install it and
        /// restart kwalletd (or use the file backend).
        case installQCAPlugin
        /// No OpenBao credentials in the environment: give a token, a JWT login, an AppRole, or log
        /// in with OpenBao's own client.
        case provideOpenBaoCredentials
        /// A JWT role is named but no JWT is given, nor can the CI job ask for one: give one, or
        /// let the job ask for an id token.
        case provideJWT
        /// The JWT has expired: get a fresh one.
        case freshJWT
        /// The JWT's audience is not one the role accepts: ask for one it does (when `fromActions`,
        /// vault asked the CI job for it, through a variable naming the audience).
        case jwtAudience(fromActions: Bool)
        /// A standby node redirected to an active node that is not among the addresses given: add it.
        case addActiveNode
        /// Storing a refreshed token of `account` failed, but the token is kept (in the refresh
        /// journal): once `after` (the store failure's own remedy, if any) is done, the next read
        /// of `account` stores it.
        indirect case nextGetStores(account: String, after: Remedy?)
    }
}

extension VaultError {
    /// The same failure told with another message (usually this one in a context): the code,
    /// the input, the remedy and the error number are kept.
    public func withMessage(_ message: String) -> VaultError {
        VaultError(code, message, input: input, remedy: remedy, errno: errno)
    }
}
