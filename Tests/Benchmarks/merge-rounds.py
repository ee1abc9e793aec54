#!/usr/bin/env python3
"""merge-rounds.py OUT ROUND_JSON...: merges hyperfine --export-json files of the same commands
(one per round, hyperfine_rounds in rounds.sh) into OUT: each command's raw times and exit codes
in one list, its statistics computed again from them; user and system times (hyperfine gives
only their means) are the mean of the rounds' means, each round having as many runs."""
import json
import statistics
import sys


def main() -> None:
    out, paths = sys.argv[1], sys.argv[2:]
    rounds = [json.load(open(path)) for path in paths]
    if not rounds:
        sys.exit("merge-rounds.py: no rounds to merge")
    commands = [r["command"] for r in rounds[0]["results"]]
    if any([r["command"] for r in other["results"]] != commands for other in rounds[1:]):
        sys.exit("merge-rounds.py: the rounds ran different commands")
    merged = rounds[0]
    for index, result in enumerate(merged["results"]):
        runs = [other["results"][index] for other in rounds]
        times = [time for run in runs for time in run.get("times") or []]
        if not times:
            sys.exit("merge-rounds.py: no times for %s" % result["command"])
        result["times"] = times
        result["exit_codes"] = [code for run in runs for code in run.get("exit_codes") or []]
        result["mean"] = statistics.mean(times)
        result["stddev"] = statistics.stdev(times) if len(times) > 1 else None
        result["median"] = statistics.median(times)
        result["min"], result["max"] = min(times), max(times)
        for key in ("user", "system"):
            if all(run.get(key) is not None for run in runs):
                result[key] = statistics.mean(run[key] for run in runs)
    with open(out, "w") as handle:
        json.dump(merged, handle, indent=2)


if __name__ == "__main__":
    main()
