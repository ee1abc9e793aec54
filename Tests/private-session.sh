# A private desktop session for one Secret Service provider under test (named by $provider);
# sourced by Tests/with-keepassxc.sh and Tests/with-kwallet.sh, never run.
#
# It makes a throw-away directory ($base) with a HOME, XDG directories and TMPDIR for the
# provider, and starts a D-Bus session bus of its own there (Tests/bus.sh, start_private_bus:
# without service activation, so when the provider is gone nothing is started in its place, and
# nothing the tests do reaches the caller's bus). DBUS_SESSION_BUS_ADDRESS names that bus from
# then on. Programs
# the sourcing script starts in the background are added to $pids; at exit they are stopped by
# process id, newest first (SIGTERM, then SIGKILL: a provider with a dialog open may ignore
# SIGTERM), then the bus, and $base is removed. The script's exit status is kept.
#
# VAULT_TEST_DISPLAY names an X display to show the provider's windows on (tests of its dialogs);
# without it the provider runs headless (QT_QPA_PLATFORM=offscreen).

base=$(mktemp -d "${TMPDIR:-/tmp}/vault-$provider.XXXXXX")
home="$base/home"
pids=""
bus_pid=""

# Stops a process by id: SIGTERM, then SIGKILL if it still runs after 5 s.
stop_pid() {
    kill -TERM "$1" 2>/dev/null || return 0
    tries=0
    while kill -0 "$1" 2>/dev/null && [ "$tries" -lt 50 ]; do
        tries=$((tries + 1))
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
# Stops what `start` started, newest first, and forgets it.
stop_started() {
    newest_first=""
    for started in $pids; do newest_first="$started $newest_first"; done
    for started in $newest_first; do stop_pid "$started"; done
    pids=""
}
cleanup() {
    status=$?
    trap - EXIT INT TERM
    stop_started
    if [ -n "$bus_pid" ]; then stop_pid "$bus_pid"; fi
    rm -rf "$base"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Says what failed, shows the logs in $base, and exits.
fail() {
    echo "$0: $1" >&2
    for log in "$base"/*.log; do
        if [ -s "$log" ]; then sed "s|^|$(basename "$log" .log): |" "$log" >&2; fi
    done
    exit 1
}

mkdir -m 700 "$home" "$base/runtime" "$base/tmp"
mkdir -p "$home/.config" "$home/.local/share" "$home/.cache"

: "${here:?private-session.sh is sourced by a script that sets here to the Tests folder}"
bus_tests=$here
. "$here/bus.sh"
start_private_bus "$base/bus" || fail "the private D-Bus session bus did not start"

# Runs a program as the provider sees the world: its own HOME, XDG directories and TMPDIR, this
# bus as both session and system bus (providers listen for screen-lock and sleep signals on both),
# and no display unless VAULT_TEST_DISPLAY names one. It replaces the shell it runs in: call it in
# a subshell, or in the background, where $! is then the program's own process id.
isolated() {
    if [ -n "${VAULT_TEST_DISPLAY:-}" ]; then
        set -- env DISPLAY="$VAULT_TEST_DISPLAY" QT_QPA_PLATFORM=xcb "$@"
    else
        set -- env -u DISPLAY QT_QPA_PLATFORM=offscreen "$@"
    fi
    exec env -u WAYLAND_DISPLAY -u XDG_SESSION_ID -u XDG_CURRENT_DESKTOP -u SESSION_MANAGER \
        HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
        XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" XDG_RUNTIME_DIR="$base/runtime" \
        TMPDIR="$base/tmp" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" NO_AT_BRIDGE=1 "$@"
}

# Starts `$@` isolated in the background, its output in $base/NAME.log; $pid is its process id.
start() {
    name=$1
    shift
    isolated "$@" </dev/null >"$base/$name.log" 2>&1 &
    pid=$!
    pids="$pids $pid"
}

# Waits up to 20 s for the check `$@` (`owned NAME` or `default_collection_unlocked`, Tests/bus.sh)
# to succeed while process `$pid` (the provider) runs.
await() {
    waited=0
    wait_until 20 -p "$pid" "$@" || waited=$?
    case "$waited" in
        0) ;;
        2) fail "the provider exited while waiting for: $*" ;;
        *) fail "not ready within 20 s: $*" ;;
    esac
}
