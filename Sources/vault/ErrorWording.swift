import VaultCore
import VaultStorage

extension VaultError {
    /// The line the tool prints for this error: the input it is about and the remedy in the
    /// tool's own terms (the flags and variables), which the library does not know, around the
    /// library's message.
    var wording: String {
        let subject = input.map { Self.wording(of: $0) + " " } ?? ""
        return subject + message + (remedy.map(Self.wording(of:)) ?? "")
    }

    private static func wording(of input: Input) -> String {
        switch input {
        case .backend: return "--backend"
        case .migrationSource: return "--from"
        case .migrationDestination: return "--to"
        case .migrationStores(let source, let destination): return "--from \(source) and --to \(destination)"
        case .recipient(nil): return "--recipient"
        case .recipient(let number?): return "--recipient number \(number)"
        case .binding(let number): return "--env number \(number):"
        case .passphrase: return "--passphrase"
        case .variable(let name): return name
        }
    }

    private static func wording(of remedy: Remedy) -> String {
        switch remedy {
        case .allowExpired: return "; set a new value, or use --allow-expired"
        case .askForOneTimeCode(let account): return "; print a code with 'vault otp \(account)'"
        case .addOneTimeCode(let account):
            return "; store an otpauth:// URI with 'vault otp add \(account)' (on standard input)"
        case .overwriteMigrated: return " (use --overwrite to replace them)"
        case .overwriteImported: return " (use --overwrite to replace)"
        case .nameRegularFile: return "; name a regular file with --file or VAULT_FILE"
        case .nameVaultFile: return "; give the vault file with --file or VAULT_FILE"
        case .createLinkTarget: return "; create the target or name it with --file"
        case .useJSONFormat: return "; use --format json"
        case .bindExplicitly: return "; bind it explicitly with --env VAR=NAME"
        case .bindOneExplicitly: return "; bind one of them with --env VAR=NAME"
        case .bindVariable(let account): return "; bind it with --env VAR=\(account)"
        case .logInAgain(let account): return "; run 'vault oauth login \(account)' again"
        case .logIn(let account): return "; run 'vault oauth login \(account)'"
        case .storeTokenAgain: return "; run 'vault oauth login' or 'vault set' again"
        case .storeClientSecret(let name): return "; store it with 'vault set \(name)'"
        case .trustRefresh(let account, let orListOrigin):
            return ": check it with 'vault show \(account)', then run 'vault trust \(account)'"
                + (orListOrigin ? " or list its origin in VAULT_REFRESH_ORIGINS" : "")
        case .trustHeader: return ": check who changed it, then run 'vault trust'"
        case .rekey: return "; use 'vault rekey' to change its keys"
        case .diagnoseAndReport(toProvider: true): return "; run 'vault doctor' and report it to the provider"
        case .diagnoseAndReport(toProvider: false): return "; run 'vault doctor' and report it"
        case .retryOrDiagnose: return "; retry, or run 'vault doctor'"
        case .approveInProvider:
            return ": approve vault in the provider (KeePassXC asks in a dialog, which vault lets it show when run at "
                + "a terminal on the desktop; or turn off \"Confirm when passwords are retrieved by clients\" in its "
                + "Secret Service settings) and retry"
        case .allowAccessRequest(let morePromptTime):
            return "; run vault again and allow it"
                + (morePromptTime ? " (raise VAULT_PROMPT_TIMEOUT for more time)" : "")
        case .unlockKeyringOrAnswerDialog:
            return ": unlock it (log in to the desktop, or unlock the database in KeePassXC), or run vault at a "
                + "terminal on the desktop to answer the provider's dialog"
        case .convertSSHKey(let path):
            return "; convert it to OpenSSH's format: ssh-keygen -p -f \(path ?? "FILE")"
        case .reencryptSSHKey(let path):
            return "; encrypt it again with aes256-ctr: ssh-keygen -p -Z aes256-ctr -f \(path ?? "FILE")"
        case .usePluginRecipient: return "; use the key's age plugin recipient (age1NAME1...)"
        case .retry: return "; try again"
        case .giveAccepted(let forms): return "; give \(forms)"
        case .useOneOf(let names): return "; use \(names)"
        case .setVariable(let names) where names.count > 2: return "; set one of " + names.joined(separator: ", ")
        case .setVariable(let names): return "; set " + names.joined(separator: " or ")
        case .check(let what): return "; check \(what)"
        case .restrictMode(let path, let mode): return "; run: chmod \(mode) \(path)"
        case .removeForeignFile: return "; remove it or write elsewhere"
        case .replaceProvider: return "; stop or remove it first, or use --force to make vault the provider anyway"
        case .installProgram(let name): return "; install \(name) (Debian: apt-get install dbus-daemon, or dbus-broker)"
        case .useHTTPS: return "; use https://, or set VAULT_ALLOW_HTTP=1 to allow it"
        case .nameFileItself: return "; name the file itself"
        case .unlockKeyring:
            return "; unlock it (log in to the desktop, or unlock the database in KeePassXC) and retry"
        case .unlockKeyringOrRestartProvider: return "; unlock the keyring in the provider (or restart it) and retry"
        case .answerDialogOrRaiseTimeout:
            return "; if the provider shows a dialog (unlock, or approve access), answer it, or raise VAULT_TIMEOUT"
        case .runInDesktopSession: return "; run vault in your desktop session, or use --backend file"
        case .startProvider:
            return "; start one (GNOME Keyring, KeePassXC with its Secret Service integration on, or KWallet), "
                + "or use --backend file"
        case .createDefaultKeyring: return "; create one in the provider, or use --backend file"
        case .installQCAPlugin:
            return "; install libqca-qt5-2-plugins (or your system's QCA OpenSSL plug-in) and restart kwalletd, "
                + "or use --backend file"
        case .provideOpenBaoCredentials:
            return ": set BAO_TOKEN, or BAO_JWT_ROLE with BAO_JWT or BAO_JWT_FILE, or BAO_ROLE_ID and BAO_SECRET_ID "
                + "for AppRole, or log in with 'bao login'"
        case .provideJWT:
            return ": set BAO_JWT or BAO_JWT_FILE, or in GitHub or Forgejo Actions give the job "
                + "'permissions: id-token: write'"
        case .freshJWT: return "; get a fresh one"
        case .jwtAudience(fromActions: true): return "; set BAO_JWT_AUDIENCE to one the role accepts"
        case .jwtAudience(fromActions: false): return "; ask for a JWT with an audience the role accepts"
        case .addActiveNode: return "; add the active node's address to BAO_ADDR"
        case .nextGetStores(let account, let after):
            // The store failure's own remedy comes first, where its message left off: it is what
            // lets the next read store the kept token.
            return (after.map(Self.wording(of:)) ?? "")
                + "; the refreshed token of '\(account)' is kept and will be stored by the next 'vault get \(account)'"
        }
    }
}
