# The tests' D-Bus helpers, the one home of starting a private bus, of waiting for a name on one
# and of asking whether a Secret Service is ready; sourced, never run: by Tests/with-keyring.sh,
# Tests/private-session.sh (for Tests/with-keepassxc.sh and Tests/with-kwallet.sh), and by PrivateBus
# (Tests/VaultTestSupport/PrivateBus.swift) through `sh -c`. A shell harness that starts a
# provider itself (FakeSecretService's) waits the same way:
#
#     . "$ROOT/Tests/bus.sh" && wait_until 20 -p "$fake" owned org.freedesktop.secrets
#
# Each function works on the bus DBUS_SESSION_BUS_ADDRESS names. Starting a bus needs `bus_tests`,
# the Tests folder, set before sourcing.

# Replaces the shell with a D-Bus session bus listening on the socket `$1`, configured by
# Tests/private-bus.conf: no service activation (a provider that is gone stays gone, nothing the
# tests do reaches another bus), and any client may own any name. Run it in the background or as a
# child whose process id is the bus's own, so it is stopped by that id.
exec_private_bus() {
    : "${bus_tests:?set bus_tests to the Tests folder before sourcing Tests/bus.sh}"
    exec dbus-daemon --config-file="$bus_tests/private-bus.conf" --address="unix:path=$1" --nofork
}

# Replaces the shell with a session bus as a login gets one (dbus-daemon --session: the system's
# session configuration, with activation from the standard folders: $XDG_RUNTIME_DIR,
# $XDG_DATA_HOME and $XDG_DATA_DIRS, each's dbus-1/services), listening on the socket `$1`. For
# tests of what an activation file does (vault secret-service enable); run it as exec_private_bus.
exec_session_bus() {
    exec dbus-daemon --session --address="unix:path=$1" --nofork
}

# Starts a private bus (exec_private_bus) on the socket `$1` in the background, waits (up to 10 s)
# until it listens, and points DBUS_SESSION_BUS_ADDRESS at it; $bus_pid is its process id.
start_private_bus() {
    (exec_private_bus "$1") </dev/null &
    bus_pid=$!
    wait_until 10 -p "$bus_pid" test -S "$1" || return 1
    DBUS_SESSION_BUS_ADDRESS="unix:path=$1"
    export DBUS_SESSION_BUS_ADDRESS
}

# Succeeds when the bus name `$1` has an owner.
owned() {
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

# Succeeds when the Secret Service's default collection exists and is unlocked (a call that
# starts the provider if the bus can).
default_collection_unlocked() {
    collection=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.ReadAlias default 2>/dev/null \
        | sed -n "s/^(objectpath '\(.*\)',)$/\1/p")
    [ -n "$collection" ] && [ "$collection" != / ] \
        && gdbus call --session --dest org.freedesktop.secrets --object-path "$collection" \
            --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked 2>/dev/null \
        | grep -q false
}

# wait_until SECONDS [-p PID] CHECK [ARG...]: runs CHECK every 0.1 s until it succeeds (status 0).
# Status 1 when SECONDS have passed first; with -p, status 2 as soon as process PID (the program
# being waited for) has exited. The tests' one wait loop: callers say what failed.
wait_until() {
    wait_tries=$(($1 * 10))
    shift
    wait_pid=""
    if [ "$1" = -p ]; then
        wait_pid=$2
        shift 2
    fi
    until "$@"; do
        if [ -n "$wait_pid" ] && ! kill -0 "$wait_pid" 2>/dev/null; then return 2; fi
        wait_tries=$((wait_tries - 1))
        [ "$wait_tries" -gt 0 ] || return 1
        sleep 0.1
    done
}
