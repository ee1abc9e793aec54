#!/bin/sh
# The Debian package, end to end (`make test-deb`, run by `make test`):
#   sh Tests/check-deb.sh BINARY
# builds the package from BINARY with packaging/deb/build.sh, lints it with lintian (no error, no
# warning that packaging/deb/lintian-overrides does not explain), installs it with apt into a
# minimal Debian 12 root made by debootstrap, and there, under chroot, with no Swift and no
# library vault loads at run time: vault --version, vault doctor, a file-backend set and get, the
# man page, the completions, both credential helpers; then apt remove must leave the root's file
# list as it was before the install.
#
# BINARY must run without the Swift toolchain (linked with --static-swift-stdlib). The minimal
# root is made once into $DEB_TEST_DIR/bookworm (debootstrap --variant=minbase, from the mirror in
# the host's apt sources, or DEB_TEST_MIRROR) and only ever copied: each run works in a fresh copy
# and deletes it. A missing tool fails the run. Needs root (chroot, debootstrap), or sudo.
set -eu
started=$(date +%s)

fail() {
    echo "check-deb: FAIL: $*" >&2
    exit 1
}

[ $# -eq 1 ] || fail "usage: sh Tests/check-deb.sh BINARY"
binary=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${DEB_TEST_DIR:-$repo/.build/deb-test}
for tool in debootstrap lintian chroot dpkg-deb dpkg-shlibdeps realpath mount mountpoint; do
    command -v "$tool" >/dev/null || fail "$tool is missing (make test-deps installs it)"
done
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
[ "$(id -u)" = 0 ] || command -v sudo >/dev/null || fail "not root, and sudo is missing (chroot needs root)"
mkdir -p "$dir"

# The root of this run, and the /proc mounted in it, go whatever happens.
root=$dir/root
cleanup() {
    if mountpoint -q "$root/proc" 2>/dev/null; then as_root umount "$root/proc"; fi
    as_root rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cleanup

echo "check-deb: building the package from $binary"
# gzip, not xz: the same files, and xz of the debug binary costs about 20 s of CPU more.
deb=$(DEB_COMPRESSION=gzip sh "$repo/packaging/deb/build.sh" "$binary" "$dir/out")
version=$(dpkg-deb -f "$deb" Version)
echo "check-deb: $(basename "$deb"): $(stat -c %s "$deb") bytes, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "check-deb: Depends: $(dpkg-deb -f "$deb" Depends)"

echo "check-deb: lintian"
lintian --fail-on error,warning --display-info "$deb" || fail "lintian reports an error or a warning with no override"

# The relations must name packages Debian has (apt's lists on the host).
for package in $(dpkg-deb -f "$deb" Recommends Suggests Conflicts | sed 's/^[A-Za-z]*: //; s/([^)]*)//g; s/[,|]/ /g'); do
    [ "$package" = vault ] && continue
    apt-cache show "$package" >/dev/null 2>&1 || fail "the package names $package, which apt does not know"
done

# The minimal root, made once. A stamp marks it complete: an interrupted debootstrap starts over.
base=$dir/bookworm
if [ ! -e "$base/.complete" ]; then
    mirror=${DEB_TEST_MIRROR:-}
    if [ -z "$mirror" ] && [ -r /etc/apt/sources.list.d/debian.sources ]; then
        # deb822: the first URI of the stanza whose Suites has bookworm itself.
        mirror=$(awk 'BEGIN { RS = "" } / bookworm( |\n|$)/ { for (i = 1; i <= NF; i++) if ($i == "URIs:") { print $(i + 1); exit } }' \
            /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
        mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
    fi
    [ -n "$mirror" ] || fail "no bookworm mirror in the apt sources; set DEB_TEST_MIRROR"
    echo "check-deb: debootstrap --variant=minbase bookworm from $mirror (once; cached in $base)"
    as_root rm -rf --one-file-system "$base"
    as_root debootstrap --variant=minbase bookworm "$base" "$mirror" >"$dir/debootstrap.log" 2>&1 \
        || { tail -n 20 "$dir/debootstrap.log" >&2; fail "debootstrap failed (log: $dir/debootstrap.log)"; }
    as_root rm -f "$base"/var/cache/apt/archives/*.deb
    as_root touch "$base/.complete"
fi
as_root cp -a "$base" "$root"
as_root rm -f "$root/.complete"
# vault needs /proc, as every Debian system has it: the static Swift runtime reads
# /proc/self/maps at start and traps (SIGILL) without it. The trap above unmounts it.
as_root mount -t proc proc "$root/proc"

# What is on the root, minus what apt and dpkg keep about themselves and the test's own files.
listing() {
    (cd "$root" && as_root find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
        -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \) -prune -o -print) \
        | LC_ALL=C sort
}
in_root() {
    as_root chroot "$root" /usr/bin/env -i HOME=/tmp/home PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"
}
check() {
    # check WHAT EXPECTED COMMAND...: runs COMMAND in the root; its stdout must be EXPECTED.
    what=$1 expected=$2
    shift 2
    actual=$(in_root "$@" 2>"$dir/stderr") || { status=$?; cat "$dir/stderr" >&2; fail "$what: exit status $status"; }
    [ "$actual" = "$expected" ] || fail "$what: expected '$expected', got '$actual' (stderr: $(cat "$dir/stderr"))"
    echo "check-deb: ok: $what"
}
listing >"$dir/before.txt"
for tool in swift swiftc; do
    in_root sh -c "! command -v $tool" >/dev/null || fail "the root has $tool"
done
as_root cp "$deb" "$root/tmp/"

# HashiCorp's package is called vault and installs /usr/bin/vault: with one of that name
# installed (a stand-in made here), dpkg must refuse vault-cli and leave its binary alone.
mkdir -p "$dir/hashicorp/DEBIAN" "$dir/hashicorp/usr/bin"
printf 'Package: vault\nVersion: 1.15.0\nArchitecture: all\nMaintainer: test <test@example.com>\nDescription: stand-in\n' \
    >"$dir/hashicorp/DEBIAN/control"
printf '#!/bin/sh\necho Vault v1.15.0\n' >"$dir/hashicorp/usr/bin/vault"
chmod 0755 "$dir/hashicorp/usr/bin/vault"
dpkg-deb --root-owner-group -Zgzip --build "$dir/hashicorp" "$dir/hashicorp-vault.deb" >/dev/null
as_root cp "$dir/hashicorp-vault.deb" "$root/tmp/"
in_root dpkg -i /tmp/hashicorp-vault.deb >"$dir/dpkg.log" 2>&1 || { cat "$dir/dpkg.log" >&2; fail "the stand-in vault does not install"; }
if in_root dpkg -i "/tmp/$(basename "$deb")" >"$dir/dpkg.log" 2>&1; then
    fail "dpkg installed vault-cli beside a package called vault"
fi
grep -q "conflicts with vault" "$dir/dpkg.log" || { cat "$dir/dpkg.log" >&2; fail "dpkg refused vault-cli, not for the conflict"; }
check "HashiCorp's vault kept" "Vault v1.15.0" vault
in_root dpkg --purge vault >"$dir/dpkg.log" 2>&1 || { cat "$dir/dpkg.log" >&2; fail "the stand-in vault does not go"; }
in_root rm /tmp/hashicorp-vault.deb
listing | cmp -s - "$dir/before.txt" || fail "the root changed after the conflict check"

echo "check-deb: apt install ./$(basename "$deb") in the root"
in_root sh -c "cd /tmp && apt install -y --no-install-recommends ./$(basename "$deb")" >"$dir/apt-install.log" 2>&1 \
    || { cat "$dir/apt-install.log" >&2; fail "apt install failed"; }
for library in libsecret-1.so.0 libcurl.so.4; do
    in_root sh -c "! ldconfig -p | grep -q $library" || fail "the root has $library: the test is for a system without it"
done

check "vault --version" "vault $version" vault --version
doctor=$(in_root vault doctor 2>&1) || fail "vault doctor: exit status $? ($doctor)"
echo "$doctor" | grep -q "^chosen: file" || fail "vault doctor does not choose the file backend: $doctor"
echo "check-deb: ok: vault doctor"
# The file is made with a low scrypt work factor (each later use reads it from the file): the
# test is of the package, and 2^18 costs seconds per command on a loaded machine.
check "file backend set" "" sh -c 'mkdir -p -m 700 $HOME && printf "tok\\nen" |
    VAULT_SCRYPT_WORK_FACTOR=10 VAULT_PASSPHRASE=pass vault --backend file set ci-token'
check "file backend get" "$(printf 'tok\nen')" env VAULT_PASSPHRASE=pass vault --backend file get ci-token
check "the man page" ".TH VAULT 1" sh -c 'zcat /usr/share/man/man1/vault.1.gz | grep "^\.TH" | cut -d" " -f1-3'
check "the completions" "3" sh -c 'grep -l vault /usr/share/bash-completion/completions/vault \
    /usr/share/zsh/vendor-completions/_vault /usr/share/fish/vendor_completions.d/vault.fish | wc -l'
check "git-credential-vault store" "" sh -c \
    'printf "protocol=https\nhost=git.example.com\nusername=ci\npassword=pw1\n\n" | VAULT_PASSPHRASE=pass git-credential-vault store'
check "git-credential-vault get" "$(printf 'username=ci\npassword=pw1')" sh -c \
    'printf "protocol=https\nhost=git.example.com\n\n" | VAULT_PASSPHRASE=pass git-credential-vault get'
check "docker-credential-vault store" "" sh -c \
    'printf "{\"ServerURL\":\"registry.example.com\",\"Username\":\"ci\",\"Secret\":\"pw2\"}" | VAULT_PASSPHRASE=pass docker-credential-vault store'
check "docker-credential-vault list" '{"registry.example.com":"ci"}' env VAULT_PASSPHRASE=pass docker-credential-vault list

listing >"$dir/installed.txt"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | LC_ALL=C sort >"$dir/package-files.txt"
missing=$(LC_ALL=C comm -23 "$dir/package-files.txt" "$dir/installed.txt")
[ -z "$missing" ] || fail "files of the package missing after apt install: $missing"

echo "check-deb: apt remove in the root"
in_root rm -rf /tmp/home
in_root apt remove -y vault-cli >"$dir/apt-remove.log" 2>&1 || { cat "$dir/apt-remove.log" >&2; fail "apt remove failed"; }
listing >"$dir/after.txt"
diff -u "$dir/before.txt" "$dir/after.txt" >&2 || fail "apt remove left the root different from before the install (diff above)"
echo "check-deb: ok: apt remove left no file behind ($(wc -l <"$dir/package-files.txt") files and links were installed)"
echo "check-deb: PASS in $(($(date +%s) - started)) s"
