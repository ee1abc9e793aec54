#!/bin/sh
# startup-order.sh VAULT OUT: writes OUT, the functions of the binary VAULT (a release build with
# its symbol table) that the common commands run, in the order they first run, one mangled name
# a line. `make startup-order` runs it under Tests/with-keyring.sh and writes packaging/startup.order,
# which the release link passes to lld as its symbol ordering file (Makefile, STARTUP_ORDER_FLAGS).
#
# Why: the common commands run about 2,000 of the binary's functions, half a megabyte of code that
# the linker otherwise spreads over 13 MB of text, so a command's first calls fault in about a
# hundred pages (and the kernel maps the 15 around each). Laid out together in this order, they
# fault in about half as many (docs/design.md, "Speed").
# A name that is missing from a later build is skipped by the linker; the order only decays as the
# code changes, so it is made again with the code, never edited by hand.
#
# The commands: --version; on an age file, set, get (of a small file and of a 1,000-secret one,
# which scans), ls and exec; get on the Secret Service of the bus with-keyring.sh started.
set -eu
vault=$1 out=$2

fail() {
    echo "startup-order: $*" >&2
    exit 1
}

command -v valgrind >/dev/null || fail "valgrind is not installed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read this toolchain's DWARF; the symbol table is all it needs.
strip --strip-debug -o "$work/vault" "$vault" || fail "strip --strip-debug $vault failed"
nm "$work/vault" | grep -q ' vault_main$' || fail "$vault has no symbol table (a stripped binary?)"

export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" VAULT_TIMEOUT=60
"$work/vault" keygen -o "$work/key.txt" 2>/dev/null || fail "vault keygen failed"
export VAULT_IDENTITY_FILE="$work/key.txt"
small=$work/small.age large=$work/large.age
printf 'value' | "$work/vault" --file "$small" set start/token || fail "vault set failed"
index=0
while [ "$index" -lt 1000 ]; do
    printf 'value-%s' "$index" | "$work/vault" --file "$large" set "start/token-$index" || fail "vault set (large) failed"
    index=$((index + 1))
done
printf 'value' | "$work/vault" --backend secret-service set start/token \
    || fail "vault --backend secret-service set failed (run under Tests/with-keyring.sh)"
printf 'new value' >"$work/value.txt"

# profile N INPUT ARGS...: vault ARGS under callgrind, standard input from INPUT, into callgrind.N.
profile() {
    number=$1 input=$2
    shift 2
    valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$work/callgrind.$number" \
        "$work/vault" "$@" <"$input" >/dev/null 2>"$work/valgrind.txt" \
        || { grep -v "^==" "$work/valgrind.txt" >&2; fail "vault $* failed under valgrind"; }
}
profile 1 /dev/null --version
profile 2 /dev/null --file "$small" get start/token
profile 3 "$work/value.txt" --file "$small" set start/token
profile 4 /dev/null --file "$large" get start/token-999
profile 5 /dev/null --file "$small" ls
profile 6 /dev/null --file "$small" exec --env TOKEN=start/token -- /bin/true
profile 7 /dev/null --backend secret-service get start/token

# Functions of the binary itself (callgrind's ob= lines name the object), in the order of the
# files and, in each, of first appearance; names valgrind could not give (addresses) are left out.
python3 - "$work" "$out" <<'EOF'
import glob, os, re, sys
work, out = sys.argv[1], sys.argv[2]
binary = os.path.join(work, "vault")
names, seen = [], set()
for path in sorted(glob.glob(os.path.join(work, "callgrind.*")), key=lambda p: int(p.rsplit(".", 1)[1])):
    objects, functions, current = {}, {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if match:
            kind, number, name = match.groups()
            if name:
                objects[number] = name.strip()
            if kind == "ob":
                current = objects.get(number)
            continue
        match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if match:
            kind, number, name = match.groups()
            if name:
                functions[number] = name.strip()
            name = functions.get(number)
            if kind == "fn" and current == binary and name and name not in seen \
                    and not name.startswith("0x") and " " not in name and "'" not in name:
                seen.add(name)
                names.append(name)
if len(names) < 500:
    sys.exit(f"startup-order: only {len(names)} functions found in the profiles")
with open(out, "w") as file:
    file.write("\n".join(names) + "\n")
print(f"startup-order: {len(names)} functions -> {out}")
EOF
