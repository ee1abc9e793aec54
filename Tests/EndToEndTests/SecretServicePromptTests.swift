import Foundation
import Testing
import VaultTestSupport

/// Prompts where a person sits: at a terminal on a display, a locked GNOME Keyring shows its
/// real unlock dialog (gcr-prompter on a private Xvfb display, answered with xdotool), and
/// KeePassXC its access request for items it holds back until the user approves vault; without a
/// terminal vault fails at once and opens no dialog.
///
/// Each script runs in a display, session bus and provider of its own (Tests/with-display.sh, then
/// Tests/with-keyring.sh or Tests/with-keepassxc.sh), so locking the keyring
/// or changing KeePassXC's settings disturbs no other test.
/// One test at a time: two X servers started together with `-displayfd` can pick the same
/// display number, and one test's dialog tool then finds no display.
@Suite("Secret Service: the provider's unlock dialog", .serialized)
struct SecretServicePromptTests {
    static let password = "prompt-test-password"

    @Test("at a terminal: password typed into the dialog → get succeeds; Escape → exit 4; no terminal → exit 4 at once")
    func gnomeKeyringUnlockDialog() throws {
        for tool in ["Xvfb", "xdotool", "gnome-keyring-daemon", "dbus-run-session", "python3"] {
            try requireComponent(findExecutable(tool) == nil ? "\(tool) is not installed" : nil)
        }
        let prompter = "/usr/libexec/gcr-prompter"
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: prompter) ? nil : "\(prompter) (package gcr) is not installed")
        let script = """
            set -u
            export DISPLAY="$VAULT_TEST_DISPLAY" NO_AT_BRIDGE=1 VAULT_PROMPT_TIMEOUT=60
            unset CI WAYLAND_DISPLAY
            # gcr-prompter is started by the bus: give it the display.
            dbus-update-activation-environment DISPLAY NO_AT_BRIDGE || exit 10
            vault() { timeout 90 "$VAULT_BINARY" --backend secret-service "$@"; }
            at_terminal() { timeout 90 python3 "$ROOT/Tests/on-terminal.py" "$VAULT_BINARY" --backend secret-service "$@"; }
            lock() {
                gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \\
                    --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/collection/login']" >/dev/null
            }
            printf 'prompted value' | vault set a || exit 11
            lock || exit 12

            # No terminal: exit 4 at once, and the bus never started the prompter.
            started=$(date +%s%N)
            vault get a </dev/null >"$OUT/batch.out" 2>"$OUT/batch.err"; echo "$?" >"$OUT/batch.status"
            echo $(( ($(date +%s%N) - started) / 1000000 )) >"$OUT/batch.ms"
            gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                --method org.freedesktop.DBus.NameHasOwner org.gnome.keyring.SystemPrompter >"$OUT/batch.prompter"
            xdotool search --onlyvisible --name . >"$OUT/batch.windows" 2>/dev/null || true

            # At a terminal: the dialog opens; the password typed into it unlocks the keyring.
            at_terminal get a >"$OUT/typed.out" 2>"$OUT/typed.err" &
            pid=$!
            sh "$ROOT/Tests/answer-dialog.sh" Unlock type "$VAULT_TEST_KEYRING_PASSWORD" >"$OUT/typed.dialog" 2>&1
            echo "$?" >"$OUT/typed.answered"
            wait "$pid"; echo "$?" >"$OUT/typed.status"

            # At a terminal again, locked again: Escape cancels the dialog.
            lock || exit 13
            at_terminal get a >"$OUT/cancel.out" 2>"$OUT/cancel.err" &
            pid=$!
            sh "$ROOT/Tests/answer-dialog.sh" Unlock cancel >"$OUT/cancel.dialog" 2>&1
            echo "$?" >"$OUT/cancel.answered"
            wait "$pid"; echo "$?" >"$OUT/cancel.status"
            """
        let run = try HarnessScript(
            ["Tests/with-display.sh", "sh", "Tests/with-keyring.sh"], script: script,
            environment: ["VAULT_SERVICE": "vault-e2e-prompt", "VAULT_TEST_KEYRING_PASSWORD": Self.password])
        defer { run.cleanUp() }
        let read = run.read

        expectRefusedAtOnce(read, saying: "run vault at a terminal")
        #expect(read("batch.prompter") == "(false,)", "a prompter was started without a terminal")
        #expect(read("batch.windows").isEmpty, "a window is open without a terminal")

        #expect(read("typed.answered") == "0", "no unlock dialog: \(read("typed.dialog"))")
        #expect(read("typed.status") == "0", "after the password: \(read("typed.err"))")
        #expect(read("typed.out") == "prompted value")

        #expect(read("cancel.answered") == "0", "no unlock dialog: \(read("cancel.dialog"))")
        #expect(read("cancel.status") == "4", "after Escape: \(read("cancel.err"))")
        #expect(read("cancel.out").isEmpty)
    }

    @Test("KeePassXC's access request at a terminal: Allow → success; Escape, no answer or no terminal → exit 4")
    func keePassXCAccessRequest() throws {
        for tool in ["Xvfb", "xdotool", "keepassxc", "python3"] {
            try requireComponent(findExecutable(tool) == nil ? "\(tool) is not installed" : nil)
        }
        let script = """
            set -u
            export DISPLAY="$VAULT_TEST_DISPLAY" VAULT_PROMPT_TIMEOUT=60
            unset CI WAYLAND_DISPLAY
            vault() { timeout 90 "$VAULT_BINARY" --backend secret-service "$@"; }
            at_terminal() { timeout 90 python3 "$ROOT/Tests/on-terminal.py" "$VAULT_BINARY" --backend secret-service "$@"; }
            requests() { xdotool search --onlyvisible --name 'Access Request' 2>/dev/null || true; }
            printf 'approved value' | vault set a || exit 11

            # No terminal: exit 4 at once, and KeePassXC shows no access request.
            started=$(date +%s%N)
            vault get a </dev/null >"$OUT/batch.out" 2>"$OUT/batch.err"; echo "$?" >"$OUT/batch.status"
            echo $(( ($(date +%s%N) - started) / 1000000 )) >"$OUT/batch.ms"
            vault ls </dev/null >/dev/null 2>"$OUT/batch-ls.err"; echo "$?" >"$OUT/batch-ls.status"
            requests >"$OUT/batch.windows"

            # At a terminal: KeePassXC asks; its default button (Allow Selected) lets vault read.
            at_terminal get a >"$OUT/allowed.out" 2>"$OUT/allowed.err" &
            pid=$!
            sh "$ROOT/Tests/answer-dialog.sh" 'Access Request' accept >"$OUT/allowed.dialog" 2>&1
            echo "$?" >"$OUT/allowed.answered"
            wait "$pid"; echo "$?" >"$OUT/allowed.status"

            # A new vault is a new client, asked again: Escape closes the request unanswered.
            at_terminal get a >"$OUT/denied.out" 2>"$OUT/denied.err" &
            pid=$!
            sh "$ROOT/Tests/answer-dialog.sh" 'Access Request' cancel >"$OUT/denied.dialog" 2>&1
            echo "$?" >"$OUT/denied.answered"
            wait "$pid"; echo "$?" >"$OUT/denied.status"
            requests >"$OUT/denied.windows"

            # No answer within VAULT_PROMPT_TIMEOUT: exit 4. KeePassXC 2.7 keeps its dialog open after
            # vault dismissed the request; it is closed here, so that KeePassXC stops when asked.
            (export VAULT_PROMPT_TIMEOUT=2; at_terminal get a >"$OUT/unanswered.out" 2>"$OUT/unanswered.err")
            echo "$?" >"$OUT/unanswered.status"
            sh "$ROOT/Tests/answer-dialog.sh" 'Access Request' cancel >/dev/null 2>&1
            """
        let run = try HarnessScript(
            ["Tests/with-display.sh", "Tests/with-keepassxc.sh"], script: script,
            environment: ["VAULT_SERVICE": "vault-e2e-approval", "VAULT_TEST_KEEPASSXC_CONFIRM_ACCESS": "true"])
        defer { run.cleanUp() }
        let read = run.read

        expectRefusedAtOnce(read, saying: "approve vault")
        #expect(!read("batch.err").contains("is locked"), "awaiting approval is not locked: \(read("batch.err"))")
        #expect(read("batch-ls.status") == "4", "ls without a terminal: \(read("batch-ls.err"))")
        #expect(read("batch-ls.err").contains("approve vault"), "\(read("batch-ls.err"))")
        #expect(read("batch.windows").isEmpty, "an access request is open without a terminal")

        #expect(read("allowed.answered") == "0", "no access request: \(read("allowed.dialog"))")
        #expect(read("allowed.status") == "0", "after Allow: \(read("allowed.err"))")
        #expect(read("allowed.out") == "approved value")

        #expect(read("denied.answered") == "0", "no access request: \(read("denied.dialog"))")
        #expect(read("denied.status") == "4", "after Escape: \(read("denied.err"))")
        #expect(read("denied.err").contains("access was denied in KeePassXC"), "\(read("denied.err"))")
        #expect(
            read("denied.err").contains("declined or closed; run vault again and allow it"), "\(read("denied.err"))")
        #expect(read("denied.out").isEmpty)
        #expect(read("denied.windows").isEmpty, "an access request is still open after Escape")

        #expect(read("unanswered.status") == "4", "no answer: \(read("unanswered.err"))")
        #expect(read("unanswered.err").contains("no one answered KeePassXC's access request within 2 s"))
        #expect(
            read("unanswered.err").contains(
                "; run vault again and allow it (raise VAULT_PROMPT_TIMEOUT for more time)"),
            "\(read("unanswered.err"))")
        #expect(read("unanswered.out").isEmpty)
    }

    /// The run without a terminal (files batch.*): exit 4 without waiting for the dialog, the
    /// message names `remedy`, nothing on standard output. "Without waiting" is checked against
    /// VAULT_PROMPT_TIMEOUT (60 s in the scripts), the wait a dialog would cost, with room for a
    /// loaded machine's slow start; that no dialog opened is checked without a clock.
    private func expectRefusedAtOnce(
        _ read: (String) -> String, saying remedy: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(read("batch.status") == "4", "no terminal: \(read("batch.err"))", sourceLocation: sourceLocation)
        #expect(read("batch.err").contains(remedy), "\(read("batch.err"))", sourceLocation: sourceLocation)
        #expect(read("batch.out").isEmpty, sourceLocation: sourceLocation)
        #expect(
            (Int(read("batch.ms")) ?? .max) < 30_000, "no terminal took \(read("batch.ms")) ms",
            sourceLocation: sourceLocation)
    }
}
