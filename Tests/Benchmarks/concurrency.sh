#!/usr/bin/env bash
# WRITERS processes at once, each setting NAMES different names on one vault file.
#
#     bash concurrency.sh VAULT_BINARY FILE WRITERS NAMES
#
# Unlock material comes from the environment (run.sh sets VAULT_IDENTITY_FILE). Exits 1 if any
# `vault set` failed; run.sh then counts the names present, which must be WRITERS x NAMES.
set -u
vault=$1 file=$2 writers=$3 names=$4

writer() {
    local index
    for index in $(seq -w 1 "$names"); do
        printf 'value %s-%s' "$1" "$index" | "$vault" --file "$file" set "writer-$1-$index" || return 1
    done
}

pids=()
for writer in $(seq 1 "$writers"); do
    writer "$writer" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
exit "$status"
