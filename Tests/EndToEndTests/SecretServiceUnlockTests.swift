import Foundation
import Testing
import VaultTestSupport

/// Unlocking without a person: a provider whose unlock prompt completes at once is unlocked by
/// vault; one that needs a person is exit 4 at once, its prompt dismissed.
///
/// Each test runs a script inside a KWallet of its own (Tests/with-kwallet.sh, a private bus), so
/// locking it disturbs no other test.
@Suite("Secret Service: unlock without a person")
struct SecretServiceUnlockTests {
    @Test(
        "a wallet opened at login (pamOpen) that reports itself locked is unlocked, read and written; a closed one is exit 4"
    )
    func kwalletOpenedAtLogin() throws {
        try requireComponent(findExecutable("kwalletd5") == nil ? "kwalletd5 is not installed" : nil)
        let script = """
            set -u
            vault() { timeout 60 "$VAULT_BINARY" --backend secret-service "$@"; }
            printf abc | vault set a || exit 10
            sh "$VAULT_TEST_PROVIDER_CONTROL" lock || exit 11
            started=$(date +%s%N)
            vault get a 2>"$OUT/closed.err"; echo "$?" >"$OUT/closed.status"
            echo $(( ($(date +%s%N) - started) / 1000000 )) >"$OUT/closed.ms"
            sh "$VAULT_TEST_PROVIDER_CONTROL" pam-open || exit 12
            tries=0
            until dbus-send --session --print-reply --dest=org.kde.kwalletd5 /modules/kwalletd5 \\
                org.kde.KWallet.isOpen string:kdewallet | grep -q 'boolean true'; do
                tries=$((tries + 1)); [ "$tries" -lt 100 ] || exit 13; sleep 0.1
            done
            vault get a >"$OUT/opened.out" 2>"$OUT/opened.err"; echo "$?" >"$OUT/opened.status"
            # Writes in that state, a new item and an existing one, each after a fresh login.
            for name in new a; do
                sh "$VAULT_TEST_PROVIDER_CONTROL" lock || exit 14
                sh "$VAULT_TEST_PROVIDER_CONTROL" pam-open || exit 15
                tries=0
                until dbus-send --session --print-reply --dest=org.kde.kwalletd5 /modules/kwalletd5 \
                    org.kde.KWallet.isOpen string:kdewallet | grep -q 'boolean true'; do
                    tries=$((tries + 1)); [ "$tries" -lt 100 ] || exit 16; sleep 0.1
                done
                printf "login-$name" | vault set "$name" 2>"$OUT/set-$name.err"; echo "$?" >"$OUT/set-$name.status"
                vault get "$name" >"$OUT/get-$name.out" 2>&1
                secret-tool lookup service vault-e2e-unlock username "$name" >"$OUT/tool-$name.out" 2>&1
            done
            """
        let run = try HarnessScript(
            ["Tests/with-kwallet.sh"], script: script, environment: ["VAULT_SERVICE": "vault-e2e-unlock"],
            unset: ["DISPLAY"])
        defer { run.cleanUp() }
        let read = run.read
        #expect(read("closed.status") == "4", "closed wallet: \(read("closed.err"))")
        #expect(read("closed.err").contains("locked"), "\(read("closed.err"))")
        // "At once" is against the wait for a dialog (VAULT_PROMPT_TIMEOUT, 120 s by default),
        // with room for a loaded machine; the exit status and message above are what vault says.
        #expect((Int(read("closed.ms")) ?? .max) < 30_000, "a closed wallet took \(read("closed.ms")) ms")
        #expect(read("opened.status") == "0", "wallet opened at login: \(read("opened.err"))")
        #expect(read("opened.out") == "abc")
        for name in ["new", "a"] {
            #expect(read("set-\(name).status") == "0", "set \(name) after a login: \(read("set-\(name).err"))")
            #expect(read("get-\(name).out") == "login-\(name)")
            #expect(read("tool-\(name).out") == "login-\(name)", "secret-tool lookup")
        }
    }
}
