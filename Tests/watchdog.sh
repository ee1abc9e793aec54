#!/bin/sh
# Runs a command with a time limit, and says what hung if it reaches it.
#
#     sh Tests/watchdog.sh MINUTES COMMAND [ARG...]
#
# `make test` runs each test run under it. A run that hangs would otherwise hold CI until its own
# limit and print nothing about where: past MINUTES this prints every process the command started
# (a tree, with each one's elapsed seconds and arguments: the stuck vault, strace or server is
# there), then stops them all, SIGTERM and 10 s later SIGKILL, and exits 124, as timeout(1) does.
# The command runs in a session of its own, so that all it started can be found and stopped
# together; an interrupt or SIGTERM sent to this script is passed on to all of them. Exits with the
# command's status otherwise.
set -u

if [ "$#" -lt 2 ]; then
    echo "usage: $0 MINUTES COMMAND [ARG...]" >&2
    exit 2
fi
case "$1" in
    *[!0-9]* | '') echo "$0: MINUTES must be a whole number, not '$1'" >&2 && exit 2 ;;
esac
seconds=$(($1 * 60))
shift
deadline=$(($(date +%s) + seconds))

# Without job control (set +m) a background child leads no process group, so setsid makes it the
# leader of a new session in place, and $! is that session's id.
set +m
setsid "$@" &
session=$!
stop_all() {
    kill -"$1" "-$session" 2>/dev/null
}
trap 'stop_all TERM; exit 130' INT
trap 'stop_all TERM; exit 143' TERM

while kill -0 "$session" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "$0: still running after $((seconds / 60)) minutes: $*" >&2
        echo "$0: the processes it started (elapsed seconds, state, arguments):" >&2
        ps -s "$session" -o pid=,ppid=,etimes=,stat=,args= --forest >&2
        stop_all TERM
        sleep 10
        stop_all KILL
        wait "$session" 2>/dev/null
        exit 124
    fi
    sleep 1
done
wait "$session"
