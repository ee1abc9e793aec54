#!/bin/sh
# Locks or unlocks the test Secret Service that Tests/with-keepassxc.sh or Tests/with-kwallet.sh
# started, the way its user would, so that tests can check vault against a locked provider:
#
#     sh "$VAULT_TEST_PROVIDER_CONTROL" lock|unlock|pam-open
#
# lock       KeePassXC: locks the database; KWallet: closes the wallet.
# unlock     KeePassXC: unlocks the database; KWallet: opens the wallet as at a desktop login,
#            then unlocks its collection through the Secret Service, as secret-tool would.
# pam-open   KWallet only: opens the wallet as kwallet-pam does at a desktop login, and nothing
#            more: its Secret Service collection still says it is locked.
# Those scripts export VAULT_TEST_PROVIDER_CONTROL and what this needs. `unlock` returns once the
# provider has been asked; its Secret Service view may follow a moment later.
set -eu

usage() {
    echo "usage: $0 lock|unlock|pam-open (inside Tests/with-keepassxc.sh or Tests/with-kwallet.sh)" >&2
    exit 2
}

kwallet() { # METHOD ARG...: calls KWallet's own interface
    method=$1
    shift
    dbus-send --session --print-reply --dest=org.kde.kwalletd5 /modules/kwalletd5 "org.kde.KWallet.$method" "$@"
}

# Unlocks the Secret Service's default collection: Unlock, then the prompt it returns, if any.
unlock_default_collection() {
    collection=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.ReadAlias default | sed -n "s/^(objectpath '\(.*\)',)$/\1/p")
    prompt=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.Unlock "['$collection']" \
        | sed -n "s/.*objectpath '\(.*\)')$/\1/p")
    if [ -n "$prompt" ] && [ "$prompt" != / ]; then
        gdbus call --session --dest org.freedesktop.secrets --object-path "$prompt" \
            --method org.freedesktop.Secret.Prompt.Prompt "" >/dev/null
    fi
}
[ "$#" -eq 1 ] || usage

case "${VAULT_TEST_PROVIDER:-}:$1" in
    keepassxc:lock)
        dbus-send --session --print-reply --dest=org.keepassxc.KeePassXC.MainWindow /keepassxc \
            org.keepassxc.KeePassXC.MainWindow.lockAllDatabases >/dev/null
        ;;
    keepassxc:unlock)
        # Opens the database, or unlocks it if it is open and locked. The password is a test
        # password on dbus-send's command line: KeePassXC's method takes it as an argument.
        dbus-send --session --print-reply --dest=org.keepassxc.KeePassXC.MainWindow /keepassxc \
            org.keepassxc.KeePassXC.MainWindow.openDatabase \
            string:"$VAULT_TEST_KEEPASSXC_DATABASE" string:"$VAULT_TEST_KEEPASSXC_PASSWORD" >/dev/null
        ;;
    kwallet:lock)
        kwallet close string:kdewallet boolean:true >/dev/null
        ;;
    kwallet:pam-open)
        kwallet pamOpen string:kdewallet "array:byte:$VAULT_TEST_KWALLET_KEY" int32:0 >/dev/null
        ;;
    kwallet:unlock)
        kwallet pamOpen string:kdewallet "array:byte:$VAULT_TEST_KWALLET_KEY" int32:0 >/dev/null
        # pamOpen returns before the wallet is open; the Secret Service's prompt completes
        # without a dialog only once it is.
        tries=0
        until kwallet isOpen string:kdewallet | grep -q 'boolean true'; do
            tries=$((tries + 1))
            [ "$tries" -lt 100 ] || { echo "$0: KWallet did not open the wallet within 10 s" >&2 && exit 1; }
            sleep 0.1
        done
        unlock_default_collection
        ;;
    *) usage ;;
esac
