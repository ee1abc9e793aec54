#!/bin/sh
# Runs a command against a fresh, unlocked, headless gnome-keyring (a Secret Service).
#
#     dbus-run-session -- Tests/with-keyring.sh swift test
#
# Run it inside its own session bus (dbus-run-session), never on a desktop's bus: it refuses
# to start if something already owns org.freedesktop.secrets there. It starts
# gnome-keyring-daemon with only the secrets component in a throw-away HOME and XDG
# directories, creates the login keyring and unlocks it with a test password
# (VAULT_TEST_KEYRING_PASSWORD, default "vault-test"), then runs the command with
# VAULT_TEST_KEYRING=1 so that keyring tests fail instead of skipping when no keyring is usable.
# The command keeps the caller's HOME: SwiftPM and git read their configuration there. The
# daemon ends with the session bus when dbus-run-session exits.
set -eu

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] || [ "$#" -eq 0 ]; then
    echo "usage: dbus-run-session -- $0 COMMAND [ARG...]" >&2
    exit 2
fi
if ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
    echo "$0: gnome-keyring-daemon is not installed (apt-get install gnome-keyring)" >&2
    exit 2
fi
bus_tests=$(cd "$(dirname "$0")" && pwd)
. "$bus_tests/bus.sh"
if command -v gdbus >/dev/null 2>&1 && owned org.freedesktop.secrets; then
    echo "$0: a Secret Service already runs on this bus; run me inside dbus-run-session" >&2
    exit 2
fi

keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/vault-keyring.XXXXXX")
trap 'rm -rf "$keyring_home"' EXIT
mkdir -m 700 "$keyring_home/runtime"
password="${VAULT_TEST_KEYRING_PASSWORD:-vault-test}"

# --unlock reads the password from stdin, creates the login keyring if there is none (it
# becomes the default collection) and unlocks it; --daemonize returns once the daemon runs.
printf '%s' "$password" | env HOME="$keyring_home" XDG_DATA_HOME="$keyring_home/data" \
    XDG_CONFIG_HOME="$keyring_home/config" XDG_CACHE_HOME="$keyring_home/cache" \
    XDG_RUNTIME_DIR="$keyring_home/runtime" \
    gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null

# Wait (up to 5 s) until the daemon owns org.freedesktop.secrets on the bus.
if command -v gdbus >/dev/null 2>&1 && ! wait_until 5 owned org.freedesktop.secrets; then
    echo "$0: gnome-keyring-daemon did not appear on the session bus" >&2
    exit 1
fi

export VAULT_TEST_KEYRING=1
"$@"
