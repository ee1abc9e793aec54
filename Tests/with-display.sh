#!/bin/sh
# Runs a command with a private X display (Xvfb), for tests of a provider's real dialogs:
#
#     VAULT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true Tests/with-display.sh Tests/with-keepassxc.sh sh Tests/check-prompts.sh
#
# Xvfb picks a free display number itself (-displayfd) and listens only on its local socket
# (-nolisten tcp). The command runs with VAULT_TEST_DISPLAY naming it: Tests/with-keepassxc.sh
# and Tests/with-kwallet.sh then show the provider's windows there, and xdotool, given
# DISPLAY="$VAULT_TEST_DISPLAY", can type into them. Nothing else sees the display: DISPLAY
# itself is left as it was, so that nothing else opens windows on it by accident. Xvfb is
# stopped by process id at the end. Exits with the command's status.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "$0: Xvfb is not installed (apt-get install xvfb)" >&2
    exit 2
fi

base=$(mktemp -d "${TMPDIR:-/tmp}/vault-display.XXXXXX")
xvfb_pid=""
cleanup() {
    status=$?
    trap - EXIT INT TERM
    if [ -n "$xvfb_pid" ]; then
        kill -TERM "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    rm -rf "$base"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkfifo "$base/displayfd"
Xvfb -displayfd 3 -nolisten tcp -screen 0 1024x768x24 3>"$base/displayfd" </dev/null >"$base/xvfb.log" 2>&1 &
xvfb_pid=$!
# Xvfb writes its display number to the pipe once it accepts connections.
read -r number <"$base/displayfd" || number=""
if [ -z "$number" ]; then
    echo "$0: Xvfb did not start" >&2
    cat "$base/xvfb.log" >&2
    exit 1
fi

export VAULT_TEST_DISPLAY=":$number"
status=0
"$@" || status=$?
exit "$status"
