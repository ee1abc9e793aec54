#!/usr/bin/env bash
# The unlock cache (issue 25), called by run.sh inside a session keyring of its own
# (`keyctl session -`), so that the key it caches never reaches the caller's keyrings.
#
#     bash unlock.sh VAULT WORK OUT RUNS WARMUP SECRET EXPECTED
#
# WORK holds run.sh's passphrase.age (scrypt, work factor 18), passphrase.txt, file.age and
# key.txt, and pass's store. Writes OUT/unlock-get.json (a passphrase file after `vault unlock`
# beside an identity file and `pass show`) and OUT/unlock-prompts.txt (passphrase prompts in a
# session of N commands at a terminal, without and with the cache).
set -euo pipefail
vault=$1 work=$2 out=$3 runs=$4 warmup=$5 secret=$6 expected=$7
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rounds.sh"
python=/usr/bin/python3

fail() {
    echo "bench: broken measurement: $*" >&2
    exit 1
}

VAULT_PASSPHRASE=$(cat "$work/passphrase.txt") "$vault" --file "$work/passphrase.age" unlock --for 10m 2>/dev/null \
    || fail "vault unlock"
export VAULT_IDENTITY_FILE="$work/key.txt"
# Without a terminal or VAULT_PASSPHRASE, the passphrase file opens only through the cache.
[ "$(setsid -w "$vault" --file "$work/passphrase.age" get "$secret" </dev/null)" = "$expected" ] \
    || fail "vault get through the cache"
[ "$(pass show "$secret")" = "$expected" ] || fail "pass show"
hyperfine_rounds "$out/unlock-get.json" --style basic -N --warmup "$warmup" --runs "$runs" \
    "$vault --file $work/passphrase.age get $secret" \
    "$vault --file $work/file.age get $secret" \
    "pass show $secret" || fail "hyperfine failed in group unlock-get"
unset VAULT_IDENTITY_FILE
"$vault" lock 2>/dev/null || fail "vault lock"

# Prompts in a session of N commands at a terminal: age-pty.py types the passphrase at each.
commands=5
session="for i in \$(seq $commands); do $vault --file $work/passphrase.age get $secret >/dev/null; done"
count_prompts() {
    "$python" "$here/age-pty.py" "$work/passphrase.txt" --print -- keyctl session - env "$@" sh -c "$session" \
        | grep -c 'Passphrase for' || true
}
without=$(count_prompts VAULT_UNLOCK_TTL=0)
with=$(count_prompts VAULT_UNLOCK_TTL=15m)
echo "commands=$commands without=$without with=$with" >"$out/unlock-prompts.txt"
echo "== unlock prompts: $(cat "$out/unlock-prompts.txt")"
