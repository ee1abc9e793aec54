#!/usr/bin/env bash
# vault as the Secret Service against gnome-keyring, side by side: `secret-tool lookup` of one item
# among 100 from each provider, in one hyperfine run, and each provider's resident memory (VmRSS)
# holding those 100 items. run.sh starts it as
#
#     sh Tests/with-keyring.sh bash secret-service-provider.sh VAULT OUT_DIR RUNS WARMUP
#
# gnome-keyring answers on that session bus; vault's provider (`vault secret-service serve`, an
# identity vault in a throw-away folder) on a private bus of its own (Tests/bus.sh). Each
# secret-tool is pointed at its provider's bus by `env`, the same for both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rounds.sh"
vault=$1 out=$2 runs=$3 warmup=$4
work=$(mktemp -d)
provider=""
bus_pid=""

fail() {
    echo "bench: broken measurement (vault as the Secret Service): $*" >&2
    exit 1
}
cleanup() {
    [ -z "$provider" ] || kill "$provider" 2>/dev/null || true
    [ -z "$bus_pid" ] || kill "$bus_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

keyring_bus=$DBUS_SESSION_BUS_ADDRESS
bus_tests=$(cd "$here/.." && pwd)
. "$bus_tests/bus.sh"
start_private_bus "$work/bus" || fail "the private bus did not start"
vault_bus=$DBUS_SESSION_BUS_ADDRESS
DBUS_SESSION_BUS_ADDRESS=$keyring_bus

export VAULT_FILE="$work/vault.age"
VAULT_IDENTITY=$("$vault" keygen 2>/dev/null | grep '^AGE-SECRET-KEY-') || fail "vault keygen"
export VAULT_IDENTITY
DBUS_SESSION_BUS_ADDRESS=$vault_bus "$vault" secret-service serve 2>"$work/provider.err" </dev/null &
provider=$!
DBUS_SESSION_BUS_ADDRESS=$vault_bus wait_until 20 -p "$provider" owned org.freedesktop.secrets \
    || fail "vault's provider did not start: $(cat "$work/provider.err")"

# pid BUS: the process id of the owner of org.freedesktop.secrets on BUS.
pid() {
    DBUS_SESSION_BUS_ADDRESS=$1 gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets | sed 's/.*uint32 \([0-9]*\).*/\1/'
}
keyring_pid=$(pid "$keyring_bus")
[ "$(pid "$vault_bus")" = "$provider" ] || fail "vault's provider is not the owner of its bus's name"

for bus in "$vault_bus" "$keyring_bus"; do
    for index in $(seq -w 0 99); do
        printf 'value-%s-xxxxxxxxxxxxxxxxxxxxxxxxxxxx' "$index" \
            | DBUS_SESSION_BUS_ADDRESS=$bus secret-tool store --label="vault bench $index" service bench-provider \
                username "item-$index" || fail "secret-tool could not store item $index"
    done
    looked=$(DBUS_SESSION_BUS_ADDRESS=$bus secret-tool lookup service bench-provider username item-50)
    [ "$looked" = "value-50-xxxxxxxxxxxxxxxxxxxxxxxxxxxx" ] || fail "lookup printed '$looked'"
done

# Resident memory (kB) holding the 100 items, after one lookup each.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
{
    echo "vault-provider $(rss "$provider")"
    echo "gnome-keyring $(rss "$keyring_pid")"
} >"$out/secret-service-provider-rss.txt"
cat "$out/secret-service-provider-rss.txt"

echo "== secret-service-provider"
hyperfine_rounds "$out/secret-service-provider.json" --style basic -N --warmup "$warmup" --runs "$runs" \
    --command-name "secret-tool lookup (vault secret-service serve)" \
    "env DBUS_SESSION_BUS_ADDRESS=$vault_bus secret-tool lookup service bench-provider username item-50" \
    --command-name "secret-tool lookup (gnome-keyring)" \
    "env DBUS_SESSION_BUS_ADDRESS=$keyring_bus secret-tool lookup service bench-provider username item-50"
