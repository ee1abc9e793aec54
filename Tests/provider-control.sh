#!/bin/sh
# Locks or unlocks the test Secret Service that Tests/with-keepassxc.sh or Tests/with-kwallet.sh
# started, the way its user would (through the provider's own D-Bus interface, not the Secret
# Service's), so that tests can check vault against a locked provider:
#
#     sh "$VAULT_TEST_PROVIDER_CONTROL" lock|unlock
#
# Those scripts export VAULT_TEST_PROVIDER_CONTROL and what this needs. `unlock` returns once the
# provider says the store is open; the Secret Service view may follow a moment later.
set -eu

usage() {
    echo "usage: $0 lock|unlock (inside Tests/with-keepassxc.sh or Tests/with-kwallet.sh)" >&2
    exit 2
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
    *) usage ;;
esac
