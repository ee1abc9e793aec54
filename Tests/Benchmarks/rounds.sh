# Sourced by the benchmark scripts: hyperfine in rounds.
#
# hyperfine_rounds JSON HYPERFINE_ARGS...: like `hyperfine --export-json JSON HYPERFINE_ARGS...`,
# but the runs (`--runs N`, required) are taken in $BENCH_ROUNDS rounds (default 4) of all the
# commands in turn, and the rounds' raw times are merged into JSON as one hyperfine run would have
# written them (merge-rounds.py). hyperfine runs each command's runs back to back; on a machine
# whose speed drifts during a group (a virtual machine's neighbours), that alone moves a ratio by
# 10-20 % from one run to the next. In rounds, a slow spell slows every command of the group.
hyperfine_rounds() {
    local json=$1 rounds=${BENCH_ROUNDS:-4} runs="" round
    local args=()
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            --runs) runs=$2; shift 2 ;;
            --runs=*) runs=${1#--runs=}; shift ;;
            *) args+=("$1"); shift ;;
        esac
    done
    if [ -z "$runs" ]; then
        echo "hyperfine_rounds: --runs is required" >&2
        return 1
    fi
    local per=$(( (runs + rounds - 1) / rounds ))
    [ "$per" -ge 2 ] || per=2
    for round in $(seq 1 "$rounds"); do
        echo "-- round $round of $rounds"
        hyperfine --export-json "$json.round$round" --runs "$per" "${args[@]}" || return 1
    done
    python3 "$(dirname "${BASH_SOURCE[0]}")/merge-rounds.py" "$json" "$json".round* || return 1
    rm -f "$json".round*
}
