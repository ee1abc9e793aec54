#!/bin/sh
# Answers a provider's dialog on the test display (Tests/with-display.sh) as a person would:
#
#     sh Tests/answer-dialog.sh 'Unlock Database' type "$VAULT_TEST_KEEPASSXC_PASSWORD"
#     sh Tests/answer-dialog.sh 'Unlock Database' cancel
#     sh Tests/answer-dialog.sh 'Access Request' accept
#
# It waits (up to VAULT_TEST_DIALOG_TIMEOUT seconds, default 20) for a visible window whose title
# matches the regular expression TITLE, gives it the keyboard focus, then either types TEXT and
# presses Return, presses Return alone (accept: the dialog's default button, e.g. KeePassXC's
# "Allow Selected"), or presses Escape (Cancel). There is no window manager, so focus is set
# directly. Exits 1 if no such window appears.
#
# A dialog answered just before may still be on the display while it is destroyed: found then,
# it vanishes before it can be focused (X error BadWindow). Such a window is skipped and the
# search repeated until the deadline; and after answering, this script waits (same deadline) for
# the window it answered to be gone, so that the next call cannot find it. Exits 3 if it stays.
set -eu

if [ "$#" -lt 2 ] || { [ "$2" = type ] && [ "$#" -ne 3 ]; } || { [ "$2" != type ] && [ "$#" -ne 2 ]; } \
    || { [ "$2" != type ] && [ "$2" != cancel ] && [ "$2" != accept ]; }; then
    echo "usage: $0 TITLE type TEXT | $0 TITLE accept | $0 TITLE cancel (with VAULT_TEST_DISPLAY set)" >&2
    exit 2
fi
if [ -z "${VAULT_TEST_DISPLAY:-}" ]; then
    echo "$0: no test display; run inside Tests/with-display.sh" >&2
    exit 2
fi
export DISPLAY="$VAULT_TEST_DISPLAY"

deadline=$(($(date +%s) + ${VAULT_TEST_DIALOG_TIMEOUT:-20}))
left() { echo $((deadline - $(date +%s))); }
visible() { xdotool search --onlyvisible --name "$1" 2>/dev/null || true; }

window=
while [ -z "$window" ]; do
    if [ "$(left)" -le 0 ]; then
        echo "$0: no window titled '$1' appeared on $DISPLAY" >&2
        exit 1
    fi
    candidate=$(timeout "$(left)" xdotool search --sync --onlyvisible --name "$1" | head -n 1) || true
    [ -n "$candidate" ] || continue
    # A window destroyed between the search and here fails to focus: look again.
    if xdotool windowfocus --sync "$candidate" 2>"${TMPDIR:-/tmp}/answer-dialog.$$"; then
        window=$candidate
    else
        echo "$0: window $candidate vanished ($(cat "${TMPDIR:-/tmp}/answer-dialog.$$")); searching again" >&2
        sleep 0.1
    fi
    rm -f "${TMPDIR:-/tmp}/answer-dialog.$$"
done
case "$2" in
    type)
        xdotool type --delay 10 "$3"
        xdotool key --clearmodifiers Return
        ;;
    accept) xdotool key --clearmodifiers Return ;;
    cancel) xdotool key --clearmodifiers Escape ;;
esac
# The answered window is gone before the next dialog is looked for.
while visible "$1" | grep -qx "$window"; do
    if [ "$(left)" -le 0 ]; then
        echo "$0: window $window titled '$1' is still open after the answer" >&2
        exit 3
    fi
    sleep 0.1
done
