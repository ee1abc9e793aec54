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

window=$(timeout "${VAULT_TEST_DIALOG_TIMEOUT:-20}" xdotool search --sync --onlyvisible --name "$1" | head -n 1) || true
if [ -z "$window" ]; then
    echo "$0: no window titled '$1' appeared on $DISPLAY" >&2
    exit 1
fi
xdotool windowfocus --sync "$window"
case "$2" in
    type)
        xdotool type --delay 10 "$3"
        xdotool key --clearmodifiers Return
        ;;
    accept) xdotool key --clearmodifiers Return ;;
    cancel) xdotool key --clearmodifiers Escape ;;
esac
