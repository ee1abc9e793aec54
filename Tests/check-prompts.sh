#!/bin/sh
# Checks the interactive path of the test harness with secret-tool, which lets the provider
# prompt: a locked KeePassXC shows its unlock dialog on the test display; a password typed into
# it (Tests/answer-dialog.sh) lets `secret-tool lookup` succeed; Cancel makes it fail and leaves
# the database locked.
#
#     VAULT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true \
#         Tests/with-display.sh Tests/with-keepassxc.sh sh Tests/check-prompts.sh
#
# UnlockBeforeSearch makes a search on a locked database ask to unlock it (KeePassXC's default);
# without it the search finds nothing and no dialog opens. Exits non-zero on the first failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ "${VAULT_TEST_PROVIDER:-}" != keepassxc ] || [ -z "${VAULT_TEST_DISPLAY:-}" ]; then
    echo "usage: VAULT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true Tests/with-display.sh Tests/with-keepassxc.sh sh $0" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vault-prompts.XXXXXX")
trap 'rm -rf "$work"' EXIT
service="vault-prompt-check-$$"
fail() {
    echo "check-prompts: FAIL: $1" >&2
    exit 1
}
locked() {
    gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets/aliases/default \
        --method org.freedesktop.DBus.Properties.Get org.freedesktop.Secret.Collection Locked | grep -q true
}

printf 'prompted value' | secret-tool store --label prompt-check service "$service" username person
sh "$VAULT_TEST_PROVIDER_CONTROL" lock
locked || fail "the database did not lock"

# Unlock in the dialog: the lookup that opened it goes on and finds the value.
timeout 60 secret-tool lookup service "$service" username person >"$work/out" 2>"$work/err" &
lookup=$!
sh "$here/answer-dialog.sh" 'Unlock Database' type "$VAULT_TEST_KEEPASSXC_PASSWORD" || fail "no unlock dialog"
status=0
wait "$lookup" || status=$?
[ "$status" -eq 0 ] || fail "secret-tool lookup exited $status after the dialog was answered: $(cat "$work/err")"
[ "$(cat "$work/out")" = 'prompted value' ] || fail "secret-tool lookup returned '$(cat "$work/out")'"
! locked || fail "the database is still locked after the dialog was answered"
echo "check-prompts: ok: password typed into KeePassXC's unlock dialog, secret-tool lookup succeeded"

# Cancel the dialog: the lookup fails and the database stays locked.
sh "$VAULT_TEST_PROVIDER_CONTROL" lock
timeout 60 secret-tool lookup service "$service" username person >"$work/out" 2>"$work/err" &
lookup=$!
sh "$here/answer-dialog.sh" 'Unlock Database' cancel || fail "no unlock dialog"
status=0
wait "$lookup" || status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "secret-tool lookup exited $status after Cancel"
[ ! -s "$work/out" ] || fail "secret-tool lookup printed a value after Cancel"
locked || fail "the database is unlocked after Cancel"
echo "check-prompts: ok: KeePassXC's unlock dialog cancelled, secret-tool lookup failed (exit $status)"

sh "$VAULT_TEST_PROVIDER_CONTROL" unlock
secret-tool clear service "$service"
