#!/bin/sh
# Builds the Debian package vault-cli from a vault binary: sh packaging/deb/build.sh BINARY OUTDIR
# Prints the path of the .deb. `make deb` passes the release build; Tests/check-deb.sh a test build.
#
# The package is vault-cli, not vault: HashiCorp's Vault CLI is packaged as vault and installs
# /usr/bin/vault too. This one declares Conflicts: vault, so dpkg refuses to install it beside
# HashiCorp's and apt names that package for removal and asks first (README, "Install").
# The version is vault's own (`versionString` in Sources/vault/CommandLineTool.swift, what
# `vault --version` prints); the binary must print it, so a stale binary is never packaged.
set -eu

PACKAGE=vault-cli
MAINTAINER="vault maintainers <maintainers@users.noreply.a-seed-c30e0225.example>"

fail() {
    echo "build.sh: $*" >&2
    exit 1
}

[ $# -eq 2 ] || fail "usage: sh packaging/deb/build.sh BINARY OUTDIR"
binary=$1
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/packaging/deb
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture strip readelf gzip; do
    command -v "$tool" >/dev/null || fail "$tool is missing (make deb installs dpkg-dev and binutils)"
done
[ -x "$binary" ] || fail "no executable at $binary"

version=$(sed -n 's/^let versionString = "\([^"]*\)"$/\1/p' "$root/Sources/vault/CommandLineTool.swift")
[ -n "$version" ] || fail "no versionString in Sources/vault/CommandLineTool.swift"
printed=$("$binary" --version) || fail "$binary --version failed"
[ "$printed" = "vault $version" ] || fail "$binary prints '$printed', the source says $version: rebuild it"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

# Timestamps from the last commit (or the version's file), so that two builds of one commit give
# the same package (reproducible-builds.org's SOURCE_DATE_EPOCH).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null) \
        || SOURCE_DATE_EPOCH=$(stat -c %Y "$root/Sources/vault/CommandLineTool.swift")
fi
export SOURCE_DATE_EPOCH

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "$out/.stage.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/$PACKAGE
doc=$stage/usr/share/doc/$PACKAGE
umask 022
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/man/man1" "$doc" \
    "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d" "$stage/usr/share/lintian/overrides"

# The files `make install` installs, at Debian's paths (zsh: vendor-completions, which Debian's
# zsh puts on fpath; site-functions is the local administrator's).
install -m 0755 "$binary" "$stage/usr/bin/vault"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/vault"
for helper in git-credential-vault docker-credential-vault; do
    ln -s vault "$stage/usr/bin/$helper"
done
gzip -9n <"$root/docs/vault.1" >"$stage/usr/share/man/man1/vault.1.gz"
# The helpers' pages: vault(1) describes them (CREDENTIAL HELPERS).
for helper in git-credential-vault docker-credential-vault; do
    ln -s vault.1.gz "$stage/usr/share/man/man1/$helper.1.gz"
done
"$binary" completion bash >"$stage/usr/share/bash-completion/completions/vault"
"$binary" completion zsh >"$stage/usr/share/zsh/vendor-completions/_vault"
"$binary" completion fish >"$stage/usr/share/fish/vendor_completions.d/vault.fish"
install -m 0644 "$here/copyright" "$doc/copyright"
install -m 0644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/$PACKAGE"

# A native package's changelog, made here so that the version has one source.
date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
printf '%s (%s) stable; urgency=medium\n\n  * vault %s, packaged from its source tree (make deb).\n\n -- %s  %s\n' \
    "$PACKAGE" "$version" "$version" "$MAINTAINER" "$date" | gzip -9n >"$doc/changelog.gz"

# Depends: what the loader needs, as dpkg-shlibdeps finds it (it wants a debian/control).
mkdir -p "$work/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" "$PACKAGE" >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$stage/usr/bin/vault" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies for $binary"
# dpkg-shlibdeps goes by the symbols the binary imports, not by the loader feature it requires:
# packed relative relocations (DT_RELR, the release link's; docs/design.md, "Speed") need glibc
# 2.36, which refuses to load the binary otherwise (version GLIBC_ABI_DT_RELR not found).
if readelf -V "$stage/usr/bin/vault" | grep -q 'Name: GLIBC_ABI_DT_RELR'; then
    libc=$(printf '%s\n' "$depends" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
    [ -n "$libc" ] || fail "dpkg-shlibdeps gave no libc6 version for $binary: $depends"
    if dpkg --compare-versions "$libc" lt 2.36; then
        depends=$(printf '%s\n' "$depends" | sed "s/libc6 (>= $libc)/libc6 (>= 2.36)/")
    fi
fi

find "$stage" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@PACKAGE@/$PACKAGE/" -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
    -e "s/@DEPENDS@/$depends/" -e "s/@MAINTAINER@/$MAINTAINER/" "$here/control.in" >"$stage/DEBIAN/control"
(cd "$stage" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

deb=$out/${PACKAGE}_${version}_$arch.deb
# xz, Debian's default; DEB_COMPRESSION=gzip (the test's) packs the same files four times faster.
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$stage" "$deb" >/dev/null
echo "$deb"
