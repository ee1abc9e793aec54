#!/bin/sh
# Runs a command against a fresh, unlocked, headless gnome-keyring (a Secret Service).
#
#     sh Tests/with-keyring.sh swift test
#
# It starts a D-Bus session bus of its own (dbus-run-session) with the system's session
# configuration, so that gnome-keyring's prompter and everything else a desktop's bus can start is
# there, and one activation file of its own, read before the system's: org.freedesktop.secrets
# starts gnome-keyring-daemon with only the secrets component in a throw-away HOME and XDG
# directories, unlocking (and the first time creating, as the default collection) the login
# keyring with a test password (VAULT_TEST_KEYRING_PASSWORD, default "vault-test").
#
# The bus starts it for the first call, and again if it has gone: gnome-keyring-daemon can abort on
# a failed GLib assertion (reported upstream when a client vanishes in the middle of a request, and
# the tests kill clients on purpose). It then comes back with the same keyring, which it saved
# after each change, instead of the system's activation file starting a keyring without a login
# collection, where every later test fails. At the end the script says on stderr how often that
# happened, with the daemon's log.
#
# The command runs with VAULT_TEST_KEYRING=1 (keyring tests fail instead of skipping when no
# keyring is usable) once the default collection is unlocked, and keeps the caller's HOME: SwiftPM
# and git read their configuration there. The daemon ends with the bus. Exits with the command's
# status.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in gnome-keyring-daemon dbus-run-session gdbus; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$0: $tool is not installed (apt-get install gnome-keyring dbus libglib2.0-bin)" >&2
        exit 2
    fi
done
bus_tests=$(cd "$(dirname "$0")" && pwd)

if [ -z "${VAULT_KEYRING_HOME:-}" ]; then
    keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/vault-keyring.XXXXXX")
    trap 'rm -rf "$keyring_home"' EXIT
    mkdir -m 700 "$keyring_home/runtime" "$keyring_home/services"
    printf '%s' "${VAULT_TEST_KEYRING_PASSWORD:-vault-test}" >"$keyring_home/password"
    # The bus runs this for every start of the daemon; the Exec line below holds no spaces.
    cat >"$keyring_home/start-daemon" <<EOF
#!/bin/sh
date '+%H:%M:%S' >>"$keyring_home/starts"
exec env HOME="$keyring_home" XDG_DATA_HOME="$keyring_home/data" XDG_CONFIG_HOME="$keyring_home/config" \\
    XDG_CACHE_HOME="$keyring_home/cache" XDG_RUNTIME_DIR="$keyring_home/runtime" \\
    gnome-keyring-daemon --unlock --components=secrets --foreground <"$keyring_home/password" \\
    >>"$keyring_home/daemon.log" 2>&1
EOF
    printf '[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/bin/sh %s/start-daemon\n' "$keyring_home" \
        >"$keyring_home/services/org.freedesktop.secrets.service"
    # dbus-daemon takes a name's activation file from the first folder that has one.
    cat >"$keyring_home/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <servicedir>$keyring_home/services</servicedir>
  <include>/usr/share/dbus-1/session.conf</include>
</busconfig>
EOF
    status=0
    VAULT_KEYRING_HOME=$keyring_home dbus-run-session --config-file="$keyring_home/bus.conf" -- sh "$0" "$@" \
        || status=$?
    starts=$(wc -l <"$keyring_home/starts" 2>/dev/null || echo 0)
    if [ "$starts" -gt 1 ]; then
        echo "$0: gnome-keyring-daemon stopped during the run; the bus started it $starts times in all," \
            "at $(tr '\n' ' ' <"$keyring_home/starts"); its log:" >&2
        sed 's/^/gnome-keyring-daemon: /' "$keyring_home/daemon.log" >&2
    fi
    exit "$status"
fi

. "$bus_tests/bus.sh"
# The first call starts the daemon; wait (up to 20 s) until it answers with the login keyring
# unlocked.
if ! wait_until 20 default_collection_unlocked; then
    echo "$0: gnome-keyring-daemon did not start with its login keyring unlocked; its log:" >&2
    cat "$VAULT_KEYRING_HOME/daemon.log" >&2 2>/dev/null || true
    exit 1
fi
unset VAULT_KEYRING_HOME
export VAULT_TEST_KEYRING=1
"$@"
