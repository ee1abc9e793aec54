#!/bin/sh
# Runs a command against a fresh, unlocked, headless KeePassXC (a Secret Service).
#
#     Tests/with-keepassxc.sh swift test --skip-build --filter StoreContract
#
# It starts a D-Bus session bus of its own, without service activation (no <servicedir>: when
# KeePassXC is gone, nothing else is started in its place), and KeePassXC with a throw-away HOME,
# XDG directories and TMPDIR (they keep its single-instance lock and settings apart from any other
# KeePassXC): Tests/private-session.sh. KeePassXC runs without a display (QT_QPA_PLATFORM=offscreen)
# unless VAULT_TEST_DISPLAY names an X display to show its windows on (tests of its dialogs).
# The database is made with keepassxc-cli, its root group exposed to the Secret Service (the
# FDO_SECRETS_EXPOSED_GROUP custom data, which only an XML export, edit and import can set), and
# opened with KeePassXC's own D-Bus method. It is not saved after every change: KeePassXC 2.7.4
# saves in a worker thread, and that crashes it (SIGSEGV in QtCore) when several clients write at
# once, as the tests do; the secrets live in the open database, where the Secret Service reads
# them. The command runs once org.freedesktop.secrets is owned and the default collection is
# unlocked, with the bus's address in DBUS_SESSION_BUS_ADDRESS and:
#   VAULT_TEST_PROVIDER=keepassxc, VAULT_TEST_KEYRING=1
#   VAULT_TEST_PROVIDER_CONTROL   Tests/provider-control.sh: `sh "$VAULT_TEST_PROVIDER_CONTROL" lock`
#                                 locks the database, `... unlock` unlocks it again
#   VAULT_TEST_KEEPASSXC_DATABASE, VAULT_TEST_KEEPASSXC_PASSWORD   the database and its password
# Settings a test may change (true or false; the defaults let a script use the service unasked):
#   VAULT_TEST_KEEPASSXC_CONFIRM_ACCESS (false)   ask the user before a program reads an item
#   VAULT_TEST_KEEPASSXC_CONFIRM_DELETE (false)   ask the user before an item is deleted
#   VAULT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH (false)   a search on a locked database asks to unlock
# The command keeps the caller's HOME: SwiftPM and git read their configuration there. At the end
# KeePassXC and the bus are stopped by process id (KeePassXC ignores SIGTERM while a dialog is
# open, so SIGKILL follows) and the directory is removed. Exits with the command's status.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in keepassxc keepassxc-cli dbus-daemon dbus-send gdbus base64 od; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$0: $tool is not installed (apt-get install keepassxc dbus libglib2.0-bin coreutils)" >&2
        exit 2
    fi
done
setting() { # NAME DEFAULT: the value of a true/false setting from the environment
    eval "value=\${$1:-$2}"
    case "$value" in
        true | false) echo "$value" ;;
        *) echo "$0: $1 must be true or false, not '$value'" >&2 && return 2 ;;
    esac
}
confirm_access=$(setting VAULT_TEST_KEEPASSXC_CONFIRM_ACCESS false)
confirm_delete=$(setting VAULT_TEST_KEEPASSXC_CONFIRM_DELETE false)
unlock_before_search=$(setting VAULT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH false)
password="${VAULT_TEST_KEEPASSXC_PASSWORD:-vault-test}"
here=$(cd "$(dirname "$0")" && pwd)

provider=keepassxc
. "$here/private-session.sh"
mkdir -p "$home/.config/keepassxc"

# The database: created empty, exported, its root group named as the exposed group, imported.
database="$base/vault-test.kdbx"
printf '%s\n%s\n' "$password" "$password" \
    | (isolated keepassxc-cli db-create -q -p -t 100 "$base/empty.kdbx") >/dev/null 2>>"$base/keepassxc-cli.log" \
    || fail "keepassxc-cli db-create failed"
printf '%s\n' "$password" | (isolated keepassxc-cli export -q -f xml "$base/empty.kdbx") >"$base/empty.xml" \
    2>>"$base/keepassxc-cli.log" || fail "keepassxc-cli export failed"
root_uuid=$(sed -n '/<Root>/,/<\/Root>/s/.*<UUID>\(.*\)<\/UUID>.*/\1/p' "$base/empty.xml" | head -n 1 \
    | base64 -d | od -An -v -tx1 | tr -d ' \n' \
    | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\)$/{\1-\2-\3-\4-\5}/')
case "$root_uuid" in
    {????????-????-????-????-????????????}) ;;
    *) fail "cannot read the root group's UUID from keepassxc-cli's XML export" ;;
esac
sed "s|</Meta>|<CustomData><Item><Key>FDO_SECRETS_EXPOSED_GROUP</Key><Value>$root_uuid</Value></Item></CustomData></Meta>|" \
    "$base/empty.xml" >"$base/exposed.xml"
printf '%s\n%s\n' "$password" "$password" \
    | (isolated keepassxc-cli import -q -p -t 100 "$base/exposed.xml" "$database") >/dev/null 2>>"$base/keepassxc-cli.log" \
    || fail "keepassxc-cli import failed"
rm -f "$base/empty.kdbx" "$base/empty.xml" "$base/exposed.xml"

cat >"$home/.config/keepassxc/keepassxc.ini" <<EOF
[General]
ConfigVersion=2
SingleInstance=false
RememberLastDatabases=false
RememberLastKeyFiles=false
OpenPreviousDatabasesOnStartup=false
AutoSaveAfterEveryChange=false
AutoSaveNonDataChanges=false

[GUI]
CheckForUpdates=false
ShowTrayIcon=false

[Browser]
Enabled=false

[SSHAgent]
Enabled=false

[FdoSecrets]
Enabled=true
ShowNotification=false
ConfirmAccessItem=$confirm_access
ConfirmDeleteItem=$confirm_delete
UnlockBeforeSearch=$unlock_before_search

[Security]
LockDatabaseIdle=false
LockDatabaseScreenLock=false
LockDatabaseMinimize=false
EOF

start keepassxc keepassxc

export VAULT_TEST_PROVIDER=keepassxc
export VAULT_TEST_KEEPASSXC_DATABASE="$database"
export VAULT_TEST_KEEPASSXC_PASSWORD="$password"
export VAULT_TEST_PROVIDER_CONTROL="$here/provider-control.sh"
await owned org.keepassxc.KeePassXC.MainWindow
sh "$VAULT_TEST_PROVIDER_CONTROL" unlock || fail "KeePassXC did not open $database"
await owned org.freedesktop.secrets
await default_collection_unlocked

export VAULT_TEST_KEYRING=1
status=0
"$@" || status=$?
exit "$status"
