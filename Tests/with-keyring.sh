#!/bin/sh
# Runs a command against a fresh, unlocked, headless gnome-keyring (Secret Service).
#
# Use it inside its own session bus, so nothing touches the caller's real keyring:
#     dbus-run-session -- Tests/with-keyring.sh swift test
# It gives the keyring a throw-away HOME and XDG directories, starts gnome-keyring-daemon
# with only the secrets component, creates and unlocks the login keyring with a fixed test
# password (VAULT_TEST_KEYRING_PASSWORD, default "vault-test"), then runs the command.
# The daemon exits with the session bus when dbus-run-session ends.
set -eu

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    echo "with-keyring.sh: no DBUS_SESSION_BUS_ADDRESS; run me as: dbus-run-session -- $0 COMMAND..." >&2
    exit 2
fi
if [ "$#" -eq 0 ]; then
    echo "usage: dbus-run-session -- $0 COMMAND [ARG...]" >&2
    exit 2
fi

keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/vault-keyring.XXXXXX")
mkdir -p "$keyring_home/data" "$keyring_home/config" "$keyring_home/cache" "$keyring_home/runtime"
chmod 700 "$keyring_home" "$keyring_home/runtime"
# Keep the caller's toolchain caches (SwiftPM, pyenv) reachable: only the keyring needs the new HOME.
export VAULT_TEST_REAL_HOME="${HOME:-}"
export HOME="$keyring_home"
export XDG_DATA_HOME="$keyring_home/data"
export XDG_CONFIG_HOME="$keyring_home/config"
export XDG_CACHE_HOME="$keyring_home/cache"
export XDG_RUNTIME_DIR="$keyring_home/runtime"
export VAULT_TEST_KEYRING_PASSWORD="${VAULT_TEST_KEYRING_PASSWORD:-vault-test}"

# --unlock reads the password from stdin, creates the login keyring if there is none and makes
# it the default collection; the daemon forks and prints GNOME_KEYRING_CONTROL=... lines.
eval "$(printf '%s' "$VAULT_TEST_KEYRING_PASSWORD" \
    | gnome-keyring-daemon --unlock --components=secrets --daemonize | sed 's/^/export /')"
export VAULT_TEST_KEYRING=1

exec "$@"
