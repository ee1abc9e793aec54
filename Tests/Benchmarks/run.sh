#!/usr/bin/env bash
# Measures vault against the tools people use instead, on the same data, in one run.
#
#     bash Tests/Benchmarks/run.sh VAULT_BINARY OUT_DIR [DOC]
#
# `make bench` builds the release binary and calls this. Every group runs under hyperfine with
# warm-up runs and exports its raw timings to OUT_DIR/*.json; report.py turns them into medians,
# ratios and the target checks, writes DOC (default docs/benchmarks.md) and its chart.
#
# Before a group is timed, each of its commands runs once and its output is checked: a tool
# that fails or prints the wrong secret is a broken measurement and stops the bench (exit 1).
# A missed speed target is reported, never a failure.
#
# BENCH_FLOOR (set by `make bench`) is the floor program of Tests/Benchmarks/Floor, built with
# vault's release flags; the start-up group times it beside `vault --version` and `/bin/true`.
#
# Knobs (environment): BENCH_RUNS (runs of each fast command, default 100), BENCH_SLOW_RUNS
# (scrypt and concurrency runs, default 10 and 3), BENCH_QUICK=1 (few runs, to try the harness).
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 VAULT_BINARY OUT_DIR [DOC]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rounds.sh"
root=$(cd "$here/../.." && pwd)
vault=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
doc=${3:-$root/docs/benchmarks.md}
python=/usr/bin/python3  # Debian's, the one python3-keyring is installed for

if [ "${BENCH_QUICK:-0}" = 1 ]; then
    runs=${BENCH_RUNS:-10} startup_runs=20 slow_runs=${BENCH_SLOW_RUNS:-2} concurrency_runs=1 warmup=2
else
    runs=${BENCH_RUNS:-100} startup_runs=$((${BENCH_RUNS:-100} * 5)) slow_runs=${BENCH_SLOW_RUNS:-10}
    concurrency_runs=${BENCH_CONCURRENCY_RUNS:-3} warmup=10
fi

for tool in hyperfine age age-keygen ssh-keygen secret-tool pass gpg gnuplot dbus-run-session gnome-keyring-daemon keyctl; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (make bench installs it)" >&2; exit 1; }
floor=${BENCH_FLOOR:-}
[ -n "$floor" ] && [ -x "$floor" ] || { echo "bench: BENCH_FLOOR is not the floor program (make bench builds it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vault-bench.XXXXXX")
cleanup() {
    GNUPGHOME="$work/gnupg" gpgconf --kill gpg-agent 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
rm -f "$out"/*.json "$out"/*.txt
started=$(date +%s)
cat /proc/loadavg >"$out/loadavg-start.txt"

# Only what each group sets: no caller's VAULT_* or keyring variables leak into a measurement.
unset VAULT_BACKEND VAULT_FILE VAULT_SERVICE VAULT_IDENTITY VAULT_IDENTITY_FILE VAULT_PASSPHRASE \
    VAULT_PASSPHRASE_FILE VAULT_SCRYPT_WORK_FACTOR VAULT_TIMEOUT PASSWORD_STORE_DIR GNUPGHOME CI

fail() {
    echo "bench: broken measurement: $*" >&2
    exit 1
}

# check EXPECTED COMMAND...: runs the command once; its output must be exactly EXPECTED.
check() {
    local expected=$1 actual
    shift
    actual=$("$@") || fail "'$*' exited with status $?"
    [ "$actual" = "$expected" ] || fail "'$*' printed '$actual', expected '$expected'"
}

# bench NAME HYPERFINE_ARGS...: one hyperfine group, raw timings to OUT_DIR/NAME.json.
bench() {
    local name=$1
    shift
    echo "== $name"
    hyperfine_rounds "$out/$name.json" --style basic "$@" || fail "hyperfine failed in group $name"
}

# The value make-document.py gives secret number $1 (40 bytes).
value_of() { printf 'value-%05d-xxxxxxxxxxxxxxxxxxxxxxxxxxxx' "$1"; }

# --- Data -------------------------------------------------------------------------------------
age-keygen -o "$work/key.txt" 2>/dev/null
chmod 600 "$work/key.txt"
recipient=$(age-keygen -y "$work/key.txt")
for count in 10 1000 10000; do
    "$python" "$here/make-document.py" "$count" | age -r "$recipient" -o "$work/scale-$count.age"
done
cp "$work/scale-10.age" "$work/file.age"
secret=bench-00009
expected=$(value_of 9)

# --- Start-up ---------------------------------------------------------------------------------
check "vault $("$vault" --version | cut -d' ' -f2)" "$vault" --version
check "floor 1" "$floor"
bench startup -N --warmup 50 --runs "$startup_runs" "$vault --version" "/bin/true" "$floor"
# What a start costs in work that does not depend on the machine's load (docs/design.md,
# "Speed"): the dynamic loader's relocation counts (glibc's LD_DEBUG=statistics, which counts
# the packed DT_RELR ones as none, so the tables' sizes from readelf beside them) and the minor
# page faults (GNU time), median of 11 starts.
LD_DEBUG=statistics "$vault" --version 2>"$out/startup-loader.txt" >/dev/null \
    || fail "LD_DEBUG=statistics vault --version failed"
readelf -d "$vault" >"$out/startup-dynamic.txt" || fail "readelf -d $vault failed"
faults() {
    local run
    for run in $(seq 11); do /usr/bin/time -f %R "$@" 2>&1 >/dev/null | tail -n 1; done | sort -n | sed -n 6p
}
echo "vault $(faults "$vault" --version) true $(faults /bin/true)" >"$out/startup-faults.txt"

# --- File: identity -------------------------------------------------------------------------
export VAULT_IDENTITY_FILE="$work/key.txt"
export GNUPGHOME="$work/gnupg" PASSWORD_STORE_DIR="$work/password-store"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --gen-key <<EOF 2>/dev/null
%no-protection
Key-Type: EdDSA
Key-Curve: ed25519
Subkey-Type: ECDH
Subkey-Curve: cv25519
Name-Real: vault bench
Name-Email: bench@vault.invalid
Expire-Date: 0
%commit
EOF
pass init bench@vault.invalid >/dev/null
for index in $(seq 0 9); do
    value_of "$index" | pass insert --multiline "$(printf 'bench-%05d' "$index")" >/dev/null
done
check "$expected" "$vault" --file "$work/file.age" get "$secret"
check "$("$python" "$here/make-document.py" 10)" age -d -i "$work/key.txt" "$work/file.age"
check "$expected" pass show "$secret"
bench file-identity -N --warmup "$warmup" --runs "$runs" \
    "$vault --file $work/file.age get $secret" \
    "age -d -i $work/key.txt $work/file.age" \
    "pass show $secret"
unset VAULT_IDENTITY_FILE

# --- File: SSH keys (ssh-ed25519, ssh-rsa) beside X25519 --------------------------------------
ssh-keygen -q -t ed25519 -N "" -f "$work/id_ed25519" || fail "ssh-keygen -t ed25519 failed"
ssh-keygen -q -t rsa -b 3072 -N "" -f "$work/id_rsa" || fail "ssh-keygen -t rsa failed"
for kind in ed25519 rsa; do
    "$python" "$here/make-document.py" 10 | age -R "$work/id_$kind.pub" -o "$work/ssh-$kind.age"
    VAULT_IDENTITY_FILE="$work/id_$kind" check "$expected" "$vault" --file "$work/ssh-$kind.age" get "$secret"
done
bench file-ssh -N --warmup "$warmup" --runs "$runs" \
    "env VAULT_IDENTITY_FILE=$work/key.txt $vault --file $work/file.age get $secret" \
    "env VAULT_IDENTITY_FILE=$work/id_ed25519 $vault --file $work/ssh-ed25519.age get $secret" \
    "env VAULT_IDENTITY_FILE=$work/id_rsa $vault --file $work/ssh-rsa.age get $secret"
# --- File: post-quantum hybrid identity -------------------------------------------------------
# The same 10-secret file, rekeyed by vault to a hybrid key (ML-KEM-768 + X25519) from `vault
# keygen --pq` (Debian's age 1.1 can make neither). Both gets run under env(1), which sets the
# identity file, so the two rows differ only in the key.
"$vault" keygen --pq -o "$work/pq-key.txt" 2>/dev/null || fail "vault keygen --pq failed"
cp "$work/file.age" "$work/pq.age"
VAULT_IDENTITY_FILE="$work/key.txt" VAULT_TO_IDENTITY_FILE="$work/pq-key.txt" XDG_STATE_HOME="$work/state" \
    "$vault" --file "$work/pq.age" rekey 2>/dev/null || fail "vault rekey to the hybrid key failed"
grep -q -a '^-> mlkem768x25519 ' "$work/pq.age" || fail "the rekeyed file has no mlkem768x25519 stanza"
check "$expected" env VAULT_IDENTITY_FILE="$work/pq-key.txt" "$vault" --file "$work/pq.age" get "$secret"
check "$expected" env VAULT_IDENTITY_FILE="$work/key.txt" "$vault" --file "$work/file.age" get "$secret"
bench file-identity-hybrid -N --warmup "$warmup" --runs "$runs" \
    "env VAULT_IDENTITY_FILE=$work/key.txt $vault --file $work/file.age get $secret" \
    "env VAULT_IDENTITY_FILE=$work/pq-key.txt $vault --file $work/pq.age get $secret"

# --- File: passphrase (scrypt, work factor 18) ------------------------------------------------
# age reads passphrases only from a terminal: age-pty.py types it on a pty (see that file).
printf 'correct horse battery staple 18\n' >"$work/passphrase.txt"
chmod 600 "$work/passphrase.txt"
"$python" "$here/make-document.py" 10 >"$work/document.jsonl"
"$python" "$here/age-pty.py" "$work/passphrase.txt" -- age -p -o "$work/passphrase.age" "$work/document.jsonl" \
    || fail "age -p could not make the passphrase file"
grep -q '^-> scrypt .* 18$' "$work/passphrase.age" || fail "the passphrase file is not scrypt with work factor 18"
export VAULT_PASSPHRASE="correct horse battery staple 18"
check "$expected" "$vault" --file "$work/passphrase.age" get "$secret"
"$python" "$here/age-pty.py" "$work/passphrase.txt" --print -- age -d "$work/passphrase.age" | grep -q "$secret" \
    || fail "age -d through the pty did not print the document"
bench file-passphrase -N --warmup 1 --runs "$slow_runs" \
    "$vault --file $work/passphrase.age get $secret" \
    "$python $here/age-pty.py $work/passphrase.txt -- age -d $work/passphrase.age" \
    "$python $here/age-pty.py $work/passphrase.txt --no-prompt -- /bin/true"
unset VAULT_PASSPHRASE

# --- Unlock once: the passphrase file after `vault unlock`, in a session keyring of its own ----
export GNUPGHOME="$work/gnupg" PASSWORD_STORE_DIR="$work/password-store"
keyctl session - bash "$here/unlock.sh" "$vault" "$work" "$out" "$runs" "$warmup" "$secret" "$expected" \
    || fail "the unlock group failed"
unset GNUPGHOME PASSWORD_STORE_DIR

# --- Scale: 10, 1,000 and 10,000 secrets ------------------------------------------------------
# Each command is timed on the three sizes in one hyperfine run, so that their ratios compare
# runs minutes apart at most. get reads the last secret, the worst case for a scan.
export VAULT_IDENTITY_FILE="$work/key.txt"
value_of 1 >"$work/value.txt"
gets=() lists=() sets=()
for count in 10 1000 10000; do
    file=$work/scale-$count.age
    last=$(printf 'bench-%05d' $((count - 1)))
    check "$(value_of $((count - 1)))" "$vault" --file "$file" get "$last"
    [ "$("$vault" --file "$file" ls | wc -l)" = "$count" ] || fail "vault ls of $count secrets"
    gets+=("$vault --file $file get $last")
    lists+=("$vault --file $file ls")
    # set replaces an existing secret (same size every run); the shell is for the redirection,
    # and hyperfine subtracts its start-up.
    sets+=("$vault --file $file set $(printf 'bench-%05d' $((count / 2))) < $work/value.txt")
done
# age -d of the smallest and largest file in the same rounds: what decrypting them costs the tool
# vault's files are made for (it prints the whole document; vault scans it for one secret).
ages=()
for count in 10 10000; do
    check "$("$python" "$here/make-document.py" "$count")" age -d -i "$work/key.txt" "$work/scale-$count.age"
    ages+=("age -d -i $work/key.txt $work/scale-$count.age")
done
bench scale-get -N --warmup "$warmup" --runs "$runs" "${gets[@]}" "${ages[@]}"
bench scale-ls -N --warmup "$warmup" --runs "$runs" "${lists[@]}"
bench scale-set --warmup "$warmup" --runs "$runs" "${sets[@]}"
for count in 10 1000 10000; do
    middle=$(printf 'bench-%05d' $((count / 2)))
    check "$(cat "$work/value.txt")" "$vault" --file "$work/scale-$count.age" get "$middle"
    [ "$("$vault" --file "$work/scale-$count.age" ls | wc -l)" = "$count" ] \
        || fail "vault set changed the count of $count secrets"
done

# --- Concurrency: 8 writers x 100 names on one file -------------------------------------------
conc=$work/concurrent.age
bench concurrency --runs "$concurrency_runs" --prepare "rm -f $conc $conc.lock" \
    "bash $here/concurrency.sh $vault $conc 8 100"
present=$("$vault" --file "$conc" ls | wc -l)
echo "$present" >"$out/concurrency-count.txt"
[ "$present" = 800 ] || fail "after 8 x 100 concurrent sets, $present names are present, not 800"
unset VAULT_IDENTITY_FILE GNUPGHOME PASSWORD_STORE_DIR

# --- Secret Service: a private gnome-keyring on a private session bus -------------------------
sh "$root/Tests/with-keyring.sh" \
    bash "$here/secret-service.sh" "$vault" "$out" "$runs" "$warmup" \
    || fail "the Secret Service group failed"

# --- vault as the Secret Service against gnome-keyring, side by side ----------------------------
sh "$root/Tests/with-keyring.sh" \
    bash "$here/secret-service-provider.sh" "$vault" "$out" "$runs" "$warmup" \
    || fail "the Secret Service provider group failed"

# --- OpenBao: a dev server on 127.0.0.1 (the bao binary of the test venv) ----------------------
bash "$here/openbao.sh" "$vault" "$out" "$runs" "$warmup" || fail "the OpenBao group failed"

# --- exec's output mask: 500 MB through `vault exec --all -- cat` (20 secrets) vs `cat | cat` ----
bash "$here/exec-mask.sh" "$vault" "$out" "$slow_runs" 1 || fail "the exec-mask group failed"

# The binary as `make install` installs it (stripped): the size users download and load.
strip -o "$work/vault-stripped" "$vault" || fail "strip $vault"
stat -c %s "$work/vault-stripped" >"$out/size-stripped.txt"
stat -c %s "$vault" >"$out/size-unstripped.txt"
cat /proc/loadavg >"$out/loadavg-end.txt"
echo $(($(date +%s) - started)) >"$out/seconds.txt"
"$python" "$here/report.py" "$out" "$vault" "$doc"
