#!/usr/bin/env bash
# vault exec's output mask (issue 36): MEGABYTES of text (default 500) through
# `vault exec --all -- cat` with 20 secrets in the command's environment, against `cat | cat` (the
# same two copies through a pipe, nothing masked). Both write to /dev/null, which is not a
# terminal, so vault masks. Called by run.sh; runs alone too:
#
#     bash exec-mask.sh VAULT OUT RUNS WARMUP [MEGABYTES]
#
# Writes OUT/exec-mask.json (hyperfine) and OUT/exec-mask.txt (the size and the ratio of medians).
set -euo pipefail
if [ "$#" -lt 4 ]; then
    echo "usage: $0 VAULT OUT RUNS WARMUP [MEGABYTES]" >&2
    exit 2
fi
vault=$(realpath "$1") out=$2 runs=$3 warmup=$4 megabytes=${5:-500}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rounds.sh"
python=/usr/bin/python3

fail() {
    echo "bench: broken measurement: $*" >&2
    exit 1
}

for tool in hyperfine age-keygen; do
    command -v "$tool" >/dev/null || fail "$tool is missing (make bench installs it)"
done
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/vault-bench.exec-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Only what this group sets.
unset VAULT_BACKEND VAULT_SERVICE VAULT_IDENTITY VAULT_PASSPHRASE VAULT_PASSPHRASE_FILE GITHUB_ACTIONS CI
export VAULT_FILE=$work/exec.age VAULT_IDENTITY_FILE=$work/key.txt VAULT_SERVICE=bench-exec
age-keygen -o "$work/key.txt" 2>/dev/null || fail "age-keygen"
for i in $(seq 1 20); do
    printf 'exec-secret-%02d-%s' "$i" "$(printf 'x%.0s' $(seq 1 24))" | "$vault" set "secret-$i" \
        || fail "vault set secret-$i"
done

# Log-like text: words, numbers, hex and base64-looking tokens (the alphabets the patterns use,
# so the automaton leaves its start state often), a 1 MiB block repeated.
"$python" - "$work/text" "$megabytes" <<'PYTHON'
import base64, random, sys
path, megabytes = sys.argv[1], int(sys.argv[2])
rng = random.Random(36)
words = ["build", "step", "error", "warning", "compile", "link", "test", "passed", "failed", "token",
         "Authorization:", "Bearer", "GET", "POST", "/api/v1/items", "200", "404", "ms", "done", "cache"]
lines = []
size = 0
while size < 1 << 20:
    parts = [rng.choice(words) for _ in range(rng.randint(3, 12))]
    parts.append(base64.b64encode(rng.randbytes(rng.randint(4, 30))).decode())
    parts.append(rng.randbytes(rng.randint(2, 12)).hex())
    line = " ".join(parts) + "\n"
    lines.append(line)
    size += len(line)
block = "".join(lines).encode()[: 1 << 20]
with open(path, "wb") as handle:
    for _ in range(megabytes):
        handle.write(block)
PYTHON

# Checked once: the text (no secret in it) comes out byte for byte; a secret comes out masked.
"$vault" exec --all -- cat "$work/text" >"$work/copy" || fail "vault exec --all -- cat"
cmp -s "$work/text" "$work/copy" || fail "vault exec changed output that holds no secret"
rm -f "$work/copy"
[ "$("$vault" exec --all -- sh -c 'printf %s "$SECRET_7"' | cat)" = "***" ] || fail "a secret was not masked"

hyperfine_rounds "$out/exec-mask.json" --style basic --warmup "$warmup" --runs "$runs" \
    "$vault exec --all -- cat $work/text >/dev/null" \
    "cat $work/text | cat >/dev/null" || fail "hyperfine failed in group exec-mask"
"$python" - "$out/exec-mask.json" "$megabytes" >"$out/exec-mask.txt" <<'PYTHON'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
vault, cat = (statistics.median(result["times"]) for result in results)
print("megabytes=%s vault=%.3fs cat=%.3fs ratio=%.2f" % (sys.argv[2], vault, cat, vault / cat))
PYTHON
echo "== exec-mask: $(cat "$out/exec-mask.txt")"
