import Testing
import VaultCore

@testable import VaultStorage
@testable import vault

/// The tool words what the library gives as data: the input an error is about by its flag or
/// variable, and the remedy by the flags that do it.
@Suite("Error wording")
struct ErrorWordingTests {
    @Test("the input is named by its flag or variable, before the library's message")
    func inputs() {
        let cases: [(VaultError.Input, String, String)] = [
            (.backend, "is 'x'; use auto", "--backend is 'x'; use auto"),
            (.variable("VAULT_FALLBACK"), "is 'x'", "VAULT_FALLBACK is 'x'"),
            (.migrationSource, "is 'x'", "--from is 'x'"),
            (.migrationDestination, "'file:' needs a path", "--to 'file:' needs a path"),
            (
                .migrationStores(source: "file", destination: "file:a"), "are the same store",
                "--from file and --to file:a are the same store"
            ),
            (.recipient(number: nil), "was given an age secret key", "--recipient was given an age secret key"),
            (.recipient(number: 2), "is not an age public key", "--recipient number 2 is not an age public key"),
            (.binding(number: 3), "the part before '='", "--env number 3: the part before '='"),
            (.passphrase, "needs VAULT_PASSPHRASE", "--passphrase needs VAULT_PASSPHRASE"),
        ]
        for (input, message, line) in cases {
            #expect(VaultError(.usage, message, input: input).wording == line)
        }
    }

    @Test("the remedy follows the message; an error about no input is its message")
    func remedies() {
        #expect(VaultError(.expired, "'a' expired").wording == "'a' expired")
        #expect(
            VaultError(.expired, "'a' expired", remedy: .allowExpired).wording
                == "'a' expired; set a new value, or use --allow-expired")
    }

    @Test("remedies that are vault commands: the lines the library used to word itself")
    func commandRemedies() {
        let cases: [(String, VaultError.Remedy, String)] = [
            (
                "the token server rejected the refresh token of 'gh' (invalid_grant)", .logInAgain(account: "gh"),
                "the token server rejected the refresh token of 'gh' (invalid_grant); run 'vault oauth login gh' again"
            ),
            ("'gh' cannot be refreshed", .logIn(account: "gh"), "'gh' cannot be refreshed; run 'vault oauth login gh'"),
            (
                "the refresh settings of 'gh' are damaged", .storeTokenAgain,
                "the refresh settings of 'gh' are damaged; run 'vault oauth login' or 'vault set' again"
            ),
            (
                "the client secret 'gh.cs' is not in the vault", .storeClientSecret(name: "gh.cs"),
                "the client secret 'gh.cs' is not in the vault; store it with 'vault set gh.cs'"
            ),
            (
                "'d' is not refreshed: r; nothing was sent", .trustRefresh(account: "d", orListOrigin: false),
                "'d' is not refreshed: r; nothing was sent: check it with 'vault show d', then run 'vault trust d'"
            ),
            (
                "'d' is not refreshed: r; nothing was sent", .trustRefresh(account: "d", orListOrigin: true),
                "'d' is not refreshed: r; nothing was sent: check it with 'vault show d', then run 'vault trust d'"
                    + " or list its origin in VAULT_REFRESH_ORIGINS"
            ),
            (
                "the recipients of /v.age changed since you last wrote it (x); new secrets would go to them too, "
                    + "so writes stop", .trustHeader,
                "the recipients of /v.age changed since you last wrote it (x); new secrets would go to them too, "
                    + "so writes stop: check who changed it, then run 'vault trust'"
            ),
            (
                "a vault already exists at /v.age", .rekey,
                "a vault already exists at /v.age; use 'vault rekey' to change its keys"
            ),
            (
                "the Secret Service provider sent an answer of the wrong shape while reading 'x' (m)",
                .diagnoseAndReport(toProvider: true),
                "the Secret Service provider sent an answer of the wrong shape while reading 'x' (m); "
                    + "run 'vault doctor' and report it to the provider"
            ),
            (
                "the Secret Service provider refused vault's request while reading 'x'",
                .diagnoseAndReport(toProvider: false),
                "the Secret Service provider refused vault's request while reading 'x'; run 'vault doctor' and report it"
            ),
            (
                "the Secret Service failed while reading 'x': m", .retryOrDiagnose,
                "the Secret Service failed while reading 'x': m; retry, or run 'vault doctor'"
            ),
            (
                "the Secret Service holds 'x' but has not allowed vault to read them", .approveInProvider,
                "the Secret Service holds 'x' but has not allowed vault to read them: approve vault in the provider "
                    + "(KeePassXC asks in a dialog, which vault lets it show when run at a terminal on the desktop; or "
                    + "turn off \"Confirm when passwords are retrieved by clients\" in its Secret Service settings) and "
                    + "retry"
            ),
            (
                "the keyring holding 'x' is locked and the provider asks a person to unlock it",
                .unlockKeyringOrAnswerDialog,
                "the keyring holding 'x' is locked and the provider asks a person to unlock it: unlock it (log in to "
                    + "the desktop, or unlock the database in KeePassXC), or run vault at a terminal on the desktop to "
                    + "answer the provider's dialog"
            ),
            (
                "no one answered KeePassXC's access request within 2 s while reading 'x'",
                .allowAccessRequest(morePromptTime: true),
                "no one answered KeePassXC's access request within 2 s while reading 'x'; run vault again and allow "
                    + "it (raise VAULT_PROMPT_TIMEOUT for more time)"
            ),
            (
                "access was denied in KeePassXC while reading 'x': its access request was declined or closed",
                .allowAccessRequest(morePromptTime: false),
                "access was denied in KeePassXC while reading 'x': its access request was declined or closed; run "
                    + "vault again and allow it"
            ),
            (
                "the keyring did not answer", .nextGetStores(account: "gh", after: nil),
                "the keyring did not answer; the refreshed token of 'gh' is kept and will be stored by the next "
                    + "'vault get gh'"
            ),
            // The store failure's own remedy stays where its message ends.
            (
                "the recipients of /v.age changed (x); so writes stop",
                .nextGetStores(account: "gh", after: .trustHeader),
                "the recipients of /v.age changed (x); so writes stop: check who changed it, then run 'vault trust'; "
                    + "the refreshed token of 'gh' is kept and will be stored by the next 'vault get gh'"
            ),
        ]
        for (message, remedy, line) in cases {
            #expect(VaultError(.other, message, remedy: remedy).wording == line)
        }
    }

    @Test("advice the library used to end its messages with, now remedies: the same lines, or clearer ones")
    func adviceRemedies() {
        let cases: [(String, VaultError.Remedy, String)] = [
            // The same line as before.
            (
                "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus); "
                    + "vault never starts one", .runInDesktopSession,
                "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus); "
                    + "vault never starts one; run vault in your desktop session, or use --backend file"
            ),
            (
                "no Secret Service provider on the session bus", .startProvider,
                "no Secret Service provider on the session bus; start one (GNOME Keyring, KeePassXC with its Secret "
                    + "Service integration on, or KWallet), or use --backend file"
            ),
            (
                "the Secret Service did not answer within 2.5 s while reading 'x'", .answerDialogOrRaiseTimeout,
                "the Secret Service did not answer within 2.5 s while reading 'x'; if the provider shows a dialog "
                    + "(unlock, or approve access), answer it, or raise VAULT_TIMEOUT"
            ),
            (
                "the keyring is locked", .unlockKeyring,
                "the keyring is locked; unlock it (log in to the desktop, or unlock the database in KeePassXC) and retry"
            ),
            (
                "the Secret Service provider cannot encrypt secrets to hand them over while reading 'x': KWallet lacks "
                    + "QCA's OpenSSL plug-in", .installQCAPlugin,
                "the Secret Service provider cannot encrypt secrets to hand them over while reading 'x': KWallet lacks "
                    + "QCA's OpenSSL plug-in; install libqca-qt5-2-plugins (or your system's QCA OpenSSL plug-in) and "
                    + "restart kwalletd, or use --backend file"
            ),
            (
                "the identity file /k is readable by others (mode 644)", .restrictMode(path: "/k", mode: "600"),
                "the identity file /k is readable by others (mode 644); run: chmod 600 /k"
            ),
            (
                "no terminal to ask for the passphrase of /v.age",
                .setVariable(oneOf: ["VAULT_IDENTITY", "VAULT_IDENTITY_FILE", "VAULT_PASSPHRASE"]),
                "no terminal to ask for the passphrase of /v.age; set one of VAULT_IDENTITY, VAULT_IDENTITY_FILE, "
                    + "VAULT_PASSPHRASE"
            ),
            (
                "no place for the refresh lock", .setVariable(oneOf: ["XDG_RUNTIME_DIR", "HOME"]),
                "no place for the refresh lock; set XDG_RUNTIME_DIR or HOME"
            ),
            (
                "VAULT_UNLOCK_SCOPE is 'x'", .giveAccepted(forms: "session or user"),
                "VAULT_UNLOCK_SCOPE is 'x'; give session or user"
            ),
            (
                "no OpenBao token", .provideOpenBaoCredentials,
                "no OpenBao token: set BAO_TOKEN, or BAO_JWT_ROLE with "
                    + "BAO_JWT or BAO_JWT_FILE, or BAO_ROLE_ID and BAO_SECRET_ID for AppRole, or log in with 'bao login'"
            ),
            (
                "https://b:8200 refused the token from BAO_TOKEN (permission denied)",
                .check("the token and its policy (docs/openbao.md)"),
                "https://b:8200 refused the token from BAO_TOKEN (permission denied); check the token and its policy "
                    + "(docs/openbao.md)"
            ),
            // Clearer than before: "retry", "try again" and "run the command again" are one remedy.
            (
                "lost the D-Bus session bus while reading 'x'", .retry,
                "lost the D-Bus session bus while reading 'x'; try again"
            ),
            // Clearer: a refused access names what vault does to let KeePassXC ask.
            (
                "the Secret Service refused vault access while reading 'x'", .approveInProvider,
                "the Secret Service refused vault access while reading 'x': approve vault in the provider (KeePassXC "
                    + "asks in a dialog, which vault lets it show when run at a terminal on the desktop; or turn off "
                    + "\"Confirm when passwords are retrieved by clients\" in its Secret Service settings) and retry"
            ),
        ]
        for (message, remedy, line) in cases {
            #expect(VaultError(.other, message, remedy: remedy).wording == line)
        }
    }
}
