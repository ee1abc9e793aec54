#!/bin/sh
# Runs a command against a fresh, unlocked, headless KWallet (kwalletd5 with its Secret Service
# API turned on).
#
#     Tests/with-kwallet.sh swift test --skip-build --filter StoreContract
#
# It starts a D-Bus session bus of its own, without service activation, and kwalletd5 with a
# throw-away HOME, XDG directories and TMPDIR (Tests/private-session.sh), headless
# (QT_QPA_PLATFORM=offscreen) unless VAULT_TEST_DISPLAY names an X display. kwalletrc turns the
# Secret Service API on and every first-use question and prompt off. The wallet is created and
# opened with KWallet's own pamOpen, as kwallet-pam does at a desktop login, with a 56-byte key
# derived from a test password (VAULT_TEST_KWALLET_PASSWORD, default "vault-test"). kwalletd
# publishes Secret Service collections only for wallets that exist when it starts, so it is then
# restarted once and the wallet opened again. A wallet opened that way still looks locked to the
# Secret Service until a client calls Unlock and runs the prompt it returns (which completes at
# once, without a dialog); this script does that, as secret-tool would. The command runs once
# the default collection is unlocked, with the bus's address in DBUS_SESSION_BUS_ADDRESS and:
#   VAULT_TEST_PROVIDER=kwallet, VAULT_TEST_KEYRING=1
#   VAULT_TEST_PROVIDER_CONTROL   Tests/provider-control.sh: `sh "$VAULT_TEST_PROVIDER_CONTROL" lock`
#                                 closes the wallet, `... unlock` opens and unlocks it again,
#                                 `... pam-open` only opens it (the state after a desktop login)
#   VAULT_TEST_KWALLET_KEY        the wallet's key: 56 bytes as comma-separated decimals
# With VAULT_TEST_KWALLET_LOGIN=1 the command runs in the state a desktop login leaves instead: the
# wallet opened with pamOpen only, its Secret Service collection still reporting itself locked
# (the first client to use it unlocks it, which completes without a dialog).
# With VAULT_TEST_KWALLET_WITHOUT_QCA_OSSL=1, kwalletd5 runs as on a system without QCA's OpenSSL
# plug-in: in a mount namespace of its own (unshare, which needs root), where the plug-in's folder
# is an empty one. Every Secret Service key exchange then fails, as it does there.
# It needs libqca-qt5-2-plugins (no dependency of kwalletd5, but without it every Secret Service
# call fails). The command keeps the caller's HOME: SwiftPM and git read their configuration
# there. At the end kwalletd5 and the bus are stopped by process id and the directory is removed.
# Exits with the command's status.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in kwalletd5 dbus-daemon dbus-send gdbus sha512sum; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$0: $tool is not installed (apt-get install libkf5wallet-bin dbus libglib2.0-bin coreutils)" >&2
        exit 2
    fi
done
if ! ls /usr/lib/*/qca-qt5/crypto/libqca-ossl.so >/dev/null 2>&1; then
    echo "$0: kwalletd5 needs QCA's OpenSSL plug-in (apt-get install libqca-qt5-2-plugins)" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)

# kwallet-pam hands kwalletd a 56-byte key (PBKDF2-SHA512 of the login password); any 56 bytes
# do: here the first 56 of the password's SHA-512, as decimals for dbus-send.
hex=$(printf '%s' "${VAULT_TEST_KWALLET_PASSWORD:-vault-test}" | sha512sum | cut -c1-112)
key=""
while [ -n "$hex" ]; do
    rest=${hex#??}
    key="$key${key:+,}$((0x${hex%"$rest"}))"
    hex=$rest
done

provider=kwallet
. "$here/private-session.sh"

cat >"$home/.config/kwalletrc" <<EOF
[Wallet]
Enabled=true
First Use=false
Default Wallet=kdewallet
Prompt on Open=false
Close When Idle=false

[org.freedesktop.secrets]
apiEnabled=true
EOF

export VAULT_TEST_PROVIDER=kwallet
export VAULT_TEST_KWALLET_KEY="$key"
export VAULT_TEST_PROVIDER_CONTROL="$here/provider-control.sh"

if [ -n "${VAULT_TEST_KWALLET_WITHOUT_QCA_OSSL:-}" ]; then
    plugins=$(dirname "$(ls /usr/lib/*/qca-qt5/crypto/libqca-ossl.so | head -n 1)")
    mkdir "$base/no-plugins"
    start_kwalletd() {
        # shellcheck disable=SC2016 # expanded by the inner shell
        start kwalletd5 unshare --mount --propagation private \
            sh -c 'mount --bind "$1" "$2" && exec kwalletd5' sh "$base/no-plugins" "$plugins"
    }
else
    start_kwalletd() { start kwalletd5 kwalletd5; }
fi

# Whether kwalletd has the test wallet open (pamOpen returns before it is).
wallet_open() {
    dbus-send --session --print-reply --dest=org.kde.kwalletd5 /modules/kwalletd5 org.kde.KWallet.isOpen \
        string:kdewallet 2>/dev/null | grep -q 'boolean true'
}

start_kwalletd
await owned org.kde.kwalletd5
sh "$VAULT_TEST_PROVIDER_CONTROL" pam-open || fail "kwalletd5 did not create the wallet"
# The second start publishes the wallet that the first one created.
stop_started
start_kwalletd
await owned org.kde.kwalletd5
await owned org.freedesktop.secrets
if [ -n "${VAULT_TEST_KWALLET_LOGIN:-}" ]; then
    # As after a desktop login: the wallet open, its collection still reporting itself locked.
    sh "$VAULT_TEST_PROVIDER_CONTROL" pam-open || fail "kwalletd5 did not open the wallet"
    await wallet_open
else
    sh "$VAULT_TEST_PROVIDER_CONTROL" unlock || fail "kwalletd5 did not unlock the wallet"
    await default_collection_unlocked
fi

export VAULT_TEST_KEYRING=1
status=0
"$@" || status=$?
exit "$status"
