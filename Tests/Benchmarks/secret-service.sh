#!/usr/bin/env bash
# The Secret Service group of the benchmark: vault, secret-tool and python3 -m keyring reading
# the same item from a private gnome-keyring. run.sh starts it as
#
#     sh Tests/with-keyring.sh bash secret-service.sh VAULT OUT_DIR RUNS WARMUP
#
# The item is addressed as they all address it: attributes service=vault, username=NAME.
# Then `ls` of a service with 100 items against `secret-tool search --all` of it, and `set` (a
# replacement) against `secret-tool store`, each pair in one hyperfine run.
set -euo pipefail
source "$(dirname "$0")/rounds.sh"
vault=$1 out=$2 runs=$3 warmup=$4
python=/usr/bin/python3
name=bench-token
value='ghp_benchmarkbenchmarkbenchmark0123456789'

fail() {
    echo "bench: broken measurement (Secret Service): $*" >&2
    exit 1
}

# calls LABEL COMMAND...: runs the command once under dbus-monitor and appends "LABEL N" to
# secret-service-calls.txt, N being the D-Bus method calls it made (Hello included). The monitor
# is ready once it reports losing its own name (it became a monitor); a GetId sent afterwards
# marks the end of the command's calls.
calls() {
    local label=$1 log="$out/dbus-monitor.txt" monitor count
    shift
    : >"$log"  # emptied here, not by the background job, which may start after the first grep
    dbus-monitor --session "type='method_call'" "type='signal',member='NameLost'" >>"$log" 2>/dev/null &
    monitor=$!
    until grep -q 'member=NameLost' "$log"; do
        kill -0 "$monitor" 2>/dev/null || fail "dbus-monitor ended before it became a monitor"
        sleep 0.01
    done
    "$@" </dev/null >/dev/null || fail "'$*' exited with status $? under dbus-monitor"
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetId >/dev/null || fail "dbus-send GetId failed"
    until grep -q 'member=GetId' "$log"; do
        kill -0 "$monitor" 2>/dev/null || fail "dbus-monitor ended before the end of '$*'"
        sleep 0.01
    done
    kill "$monitor"
    wait "$monitor" 2>/dev/null || true
    # Every method call but the marker's connection (its Hello and GetId).
    count=$(awk '/^method call/ { for (i = 1; i <= NF; i++) if ($i ~ /^sender=/) sender = $i
            calls[sender]++; if ($0 ~ /member=GetId/) marker = sender }
        END { total = 0; for (s in calls) if (s != marker) total += calls[s]; print total }' "$log")
    echo "$label $count" >>"$out/secret-service-calls.txt"
}

check() {
    local actual
    actual=$("$@") || fail "'$*' exited with status $?"
    [ "$actual" = "$value" ] || fail "'$*' printed '$actual', expected the stored value"
}

printf %s "$value" | secret-tool store --label="vault bench" service vault username "$name" \
    || fail "secret-tool could not store the item"
check "$vault" --backend secret-service get "$name"
check secret-tool lookup service vault username "$name"
check "$python" -m keyring get vault "$name"
# The backends python3-keyring chains, highest priority first (SecretService, then libsecret).
"$python" -c '
import keyring
chain = getattr(keyring.get_keyring(), "backends", [keyring.get_keyring()])
print(", ".join(backend.__class__.__module__.replace("keyring.backends.", "") for backend in chain))' \
    >"$out/python-keyring-backend.txt"
grep -q SecretService "$out/python-keyring-backend.txt" || fail "python3 -m keyring does not use the Secret Service"

rm -f "$out/secret-service-calls.txt"
calls vault-get "$vault" --backend secret-service get "$name"
calls secret-tool-lookup secret-tool lookup service vault username "$name"

echo "== secret-service"
hyperfine_rounds "$out/secret-service.json" --style basic -N --warmup "$warmup" --runs "$runs" \
    "$vault --backend secret-service get $name" \
    "secret-tool lookup service vault username $name" \
    "$python -m keyring get vault $name"

# 100 items of their own service, so that the reads above search the same keyring as before.
for index in $(seq -w 0 99); do
    printf %s "$value-$index" | secret-tool store --label="vault bench" service bench-ls username "item-$index" \
        || fail "secret-tool could not store item $index"
done
listed=$("$vault" --backend secret-service --service bench-ls ls | wc -l)
[ "$listed" = 100 ] || fail "vault ls lists $listed items of bench-ls, not 100"
echo "== secret-service-ls"
hyperfine_rounds "$out/secret-service-ls.json" --style basic -N --warmup "$warmup" --runs "$runs" \
    "$vault --backend secret-service --service bench-ls ls" \
    "secret-tool search --all service bench-ls"

# A replacement of an existing item (each tool's own), the value read from a file. The shell's
# redirection is subtracted by hyperfine (no -N).
printf %s "$value" >"$out/set-value.txt"
printf %s "$value" | "$vault" --backend secret-service --service bench-set set vault-token \
    || fail "vault could not store the set item"
printf %s "$value" | secret-tool store --label="vault bench" service bench-set username tool-token \
    || fail "secret-tool could not store the set item"
calls vault-set sh -c "exec '$vault' --backend secret-service --service bench-set set vault-token <'$out/set-value.txt'"
calls secret-tool-store sh -c "exec secret-tool store --label='vault bench' service bench-set username tool-token <'$out/set-value.txt'"
echo "== secret-service-set"
hyperfine_rounds "$out/secret-service-set.json" --style basic --warmup "$warmup" --runs "$runs" \
    "$vault --backend secret-service --service bench-set set vault-token <$out/set-value.txt" \
    "secret-tool store --label='vault bench' service bench-set username tool-token <$out/set-value.txt"
check "$vault" --backend secret-service --service bench-set get vault-token
