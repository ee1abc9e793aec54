#!/usr/bin/env bash
# The Secret Service group of the benchmark: vault, secret-tool and python3 -m keyring reading
# the same item from a private gnome-keyring. run.sh starts it as
#
#     dbus-run-session -- sh Tests/with-keyring.sh bash secret-service.sh VAULT OUT_DIR RUNS WARMUP
#
# The item is addressed as they all address it: attributes service=vault, username=NAME.
# Then `ls` of a service with 100 items against `secret-tool search --all` of it, and `set` (a
# replacement) against `secret-tool store`, each pair in one hyperfine run.
set -euo pipefail
vault=$1 out=$2 runs=$3 warmup=$4
python=/usr/bin/python3
name=bench-token
value='ghp_benchmarkbenchmarkbenchmark0123456789'

fail() {
    echo "bench: broken measurement (Secret Service): $*" >&2
    exit 1
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

echo "== secret-service"
hyperfine --style basic --export-json "$out/secret-service.json" -N --warmup "$warmup" --runs "$runs" \
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
hyperfine --style basic --export-json "$out/secret-service-ls.json" -N --warmup "$warmup" --runs "$runs" \
    "$vault --backend secret-service --service bench-ls ls" \
    "secret-tool search --all service bench-ls"

# A replacement of an existing item (each tool's own), the value read from a file. The shell's
# redirection is subtracted by hyperfine (no -N).
printf %s "$value" >"$out/set-value.txt"
printf %s "$value" | "$vault" --backend secret-service --service bench-set set vault-token \
    || fail "vault could not store the set item"
printf %s "$value" | secret-tool store --label="vault bench" service bench-set username tool-token \
    || fail "secret-tool could not store the set item"
echo "== secret-service-set"
hyperfine --style basic --export-json "$out/secret-service-set.json" --warmup "$warmup" --runs "$runs" \
    "$vault --backend secret-service --service bench-set set vault-token <$out/set-value.txt" \
    "secret-tool store --label='vault bench' service bench-set username tool-token <$out/set-value.txt"
check "$vault" --backend secret-service --service bench-set get vault-token
