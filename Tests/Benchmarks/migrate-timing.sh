#!/bin/sh
# Times `vault migrate` of COUNT secrets (default 1000): file -> file, file -> secret-service and
# secret-service -> file, each with the secrets starting in the source and the destination empty.
# It uses a private keyring, never yours:
#     swift build && sh Tests/with-keyring.sh sh Tests/Benchmarks/migrate-timing.sh [COUNT]
# VAULT_BINARY names the binary (default .build/debug/vault); VALUE_BYTES the size of each value (40).
set -eu
count=${1:-1000}
vault=${VAULT_BINARY:-$(pwd)/.build/debug/vault}
bytes=${VALUE_BYTES:-40}
dir=$(mktemp -d "${TMPDIR:-/tmp}/vault-timing.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# The source vault file, written directly in the documented format (docs/file-format.md).
VAULT_IDENTITY=$(age-keygen 2>/dev/null | grep '^AGE-SECRET-KEY-')
export VAULT_IDENTITY VAULT_SERVICE=timing VAULT_FILE="$dir/a.age"
python3 - "$count" "$bytes" > "$dir/doc" <<'PY'
import base64, os, sys
count, size = int(sys.argv[1]), int(sys.argv[2])
print('{"vault":1}')
for i in range(count):
    value = base64.b64encode(os.urandom(size)).decode()
    print('{"service":"timing","account":"token-%04d","value":"%s",'
          '"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}' % (i, value))
PY
printf %s "$VAULT_IDENTITY" | age-keygen -y > "$dir/recipient"
age -R "$dir/recipient" -o "$dir/a.age" "$dir/doc"

step() {
    start=$(date +%s.%N)
    "$vault" migrate "$@"
    end=$(date +%s.%N)
    printf '%-45s %6.2f s\n' "migrate $*" "$(echo "$end - $start" | bc)" | sed "s|$dir/||g"
}
step --from file --to "file:$dir/b.age"
step --from "file:$dir/b.age" --to secret-service
step --from secret-service --to "file:$dir/c.age"
test "$("$vault" ls --file "$dir/c.age" | wc -l)" -eq "$count"
