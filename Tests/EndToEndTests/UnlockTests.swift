import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

/// Unlock once (issue 25): the kernel keyring holds a vault file's age file key, observed from
/// outside with keyutils' `keyctl` and `/proc/keys`. Every script runs as a throw-away uid in a
/// session keyring of its own (``KeyringSandbox``), so no test can see or drop another's key.
@Suite("Unlock once: the kernel keyring")
struct UnlockTests {
    static let passphrase = "correct horse battery"

    /// Shell functions the scripts share: `keys` prints the live vault keys this process can see
    /// (an invalidated or expired key stays listed until the kernel collects it), `count` how
    /// many there are.
    static let prelude = """
        keys() { grep ' vault:' /proc/keys | awk '$2 !~ /i/ && $4 != "expd"'; }
        count() { keys | wc -l | tr -d ' '; }
        make_vault() { VAULT_PASSPHRASE="\(passphrase)" sh -c 'printf a1 | vault set a && printf b1 | vault set b'; }

        """

    @Test(
        "vault unlock keeps the file key (not the passphrase) under vault:HEADER-DIGEST, possessor-only, with a timeout; vault lock removes it"
    )
    func unlockAndLock() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock --for 30m; echo unlock=$?
                echo "line=$(keys)"
                description=$(keys | grep -o 'vault:[0-9a-f]*')
                echo "payload=$(keyctl pipe "$(keyctl search @s user "$description")" | od -An -v -tx1 | tr -d ' \\n')"
                echo "get=$(setsid -w vault get a </dev/null)"
                vault doctor | grep '^unlock'
                vault lock; echo lock=$?
                echo after=$(count)
                vault lock; echo again=$?
                setsid -w vault get a </dev/null; echo locked=$?
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        let line = try #require(result.reported("line"))
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        try #require(fields.count >= 9, "\(line)")
        #expect(fields[3] == "29m" || fields[3] == "30m", "timeout: \(line)")
        #expect(fields[4] == "3f000000", "possessor-only: \(line)")
        #expect(fields[5] == "\(box.uid)", "owner: \(line)")
        #expect(fields[7] == "user", "\(line)")
        // The description names the digest of the file's header.
        let file = try #require(FileManager.default.contents(atPath: box.vaultFile))
        let header = try Age.header(of: [UInt8](file))
        let digest = try #require(try sha256HexAll(["h": header])["h"])
        #expect(fields[8] == "vault:\(digest):", "\(line)")
        // The payload: version 1, expiry, and the 16-byte file key, which verifies the header.
        let hex = try #require(result.reported("payload"))
        #expect(hex.count == 50, "\(hex)")
        let passphraseHex = Self.passphrase.utf8.map { String(format: "%02x", $0) }.joined()
        #expect(!hex.contains(passphraseHex) && !hex.isEmpty)
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).map { offset in
            UInt8(hex.dropFirst(offset).prefix(2), radix: 16)!
        }
        #expect(bytes.first == 1)
        let key = SecureBytes(bytes.suffix(16))
        #expect(try Age.envelope(ofHeaderIn: [UInt8](file), fileKey: key) != nil, "the cached key is the file key")
        #expect(result.reported("get") == "a1", "a command without a terminal or key variables uses the cache")
        #expect(result.stdoutText.contains("unlock          works, session scope"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("the vault file is unlocked until"), "\(result.stdoutText)")
        #expect(result.reported("lock") == "0")
        #expect(result.reported("after") == "0")
        #expect(result.reported("again") == "0", "lock with nothing cached")
        #expect(result.reported("locked") == "4", "after lock, a command without a terminal cannot open the file")
    }

    @Test("a key cached with a short --for is removed by the kernel")
    func shortDuration() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock --for 1s; echo unlock=$?
                # The key with the kernel's timeout: live with at most 1 s left, or already
                # expired (listed until the kernel collects it, minutes later), however slow the
                # machine was since unlock.
                echo before=$(grep ' vault:' /proc/keys | awk '$2 !~ /i/ && ($4 == "1s" || $4 == "expd")' | wc -l)
                # Wait for the kernel to expire it (an event, polled; bounded far above 1 s).
                i=0; while [ "$(count)" != 0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
                echo after=$(count)
                setsid -w vault get a </dev/null; echo get=$?
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("before") == "1")
        #expect(result.reported("after") == "0")
        #expect(result.reported("get") == "4")
        #expect(!result.stdoutText.contains("a1"))
    }

    @Test(
        "at a terminal, a session of several commands asks once; a script without a terminal uses the key; another keyring session does not"
    )
    func asksOncePerSession() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.runOnTerminal(
            typing: Self.passphrase,
            Self.prelude + """
                make_vault
                vault get a; echo; vault get b; echo; vault ls; printf d1 | vault set d; echo set=$?
                echo script=$(setsid -w vault get d </dev/null)
                keyctl session - sh -c 'setsid -w vault get a </dev/null; echo other=$?' 2>&1
                echo count=$(count)
                """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.prompts == 1, "prompts: \(result.stderr)")
        #expect(result.reported("set") == "0")
        #expect(result.reported("script") == "d1", "\(result.stderr)")
        #expect(result.reported("other") == "4", "\(result.stderr)")
        #expect(result.reported("count") == "1")
        // Without the cache (VAULT_UNLOCK_TTL=0) the same session asks every time.
        let uncached = try box.runOnTerminal(
            typing: Self.passphrase, "export VAULT_UNLOCK_TTL=0; vault get a; vault get b; vault ls")
        #expect(uncached.prompts == 3, "prompts: \(uncached.stderr)")
    }

    @Test("a login without a session keyring of its own gets one: its key stays out of the user's other processes")
    func loginWithoutSessionKeyring() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        _ = try box.run(Self.prelude + "make_vault")
        let login = try box.runOnTerminal(
            typing: Self.passphrase,
            Self.prelude + """
                echo owner=$(keyctl rdescribe @s | cut -d';' -f2) uid=$(id -u)
                vault doctor | grep '^unlock'
                vault get a; echo
                setsid -w vault get b </dev/null; echo same=$?
                vault doctor | grep '^unlock'
                """, ownSession: false)
        #expect(login.prompts == 1, "\(login.stderr)")
        // The throw-away uid inherits this test process's session keyring: the user-session
        // keyring (no keyring of its own, as over SSH) or, where the test runs in a session
        // keyring of its own, one that belongs to another user. That is the caller's state, not
        // vault's; what vault does in each is.
        let ownerLine = try #require(login.stderr.split(separator: "\n").first { $0.hasPrefix("owner=") })
        if ownerLine.contains("owner=\(box.uid) ") {
            #expect(login.stderr.contains("no session keyring of its own"), "\(login.stderr)")
            #expect(login.stderr.contains("has a session keyring of its own"), "\(login.stderr)")
            #expect(login.reported("same") == "0", "\(login.stderr)")
        } else {
            // The kernel hands no keyring to a parent whose own is another user's: nothing is
            // kept, nothing is left behind, and doctor says so.
            #expect(login.stderr.contains("cannot outlive the command"), "\(login.stderr)")
            #expect(login.reported("same") == "4", "\(login.stderr)")
        }
        let other = try box.run(
            Self.prelude + "setsid -w vault get a </dev/null; echo other=$?; echo count=$(count)", ownSession: false)
        #expect(other.reported("other") == "4", "\(other.stderr)")
        #expect(other.reported("count") == "0")

        // Where this process itself has no session keyring of its own (it shares the
        // user-session keyring, as an SSH login does on Debian), the same as this test's own
        // user: vault never stores in the shared keyring, it gives `sh` a new one. Elsewhere the
        // throw-away uid above covers the same code. (No `vault lock` here: it would reach this
        // user's keyring, which other tests share.)
        let shared = try runTool(KeyringSandbox.keyctl, ["rdescribe", "@s"])
        if shared.stdoutText.contains(";_uid_ses.") {
            let script = """
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock --for 60s 2>/dev/null; echo unlock=$?
                echo own=$(keyctl rdescribe @s | cut -d';' -f5)
                echo same=$(setsid -w vault get a </dev/null)
                """
            let login = try runTool("/bin/sh", ["-c", script], environment: box.environment)
            #expect(login.reported("unlock") == "0", "\(login.stderr)")
            #expect(login.reported("own") == "_ses", "\(login.stdoutText)")
            #expect(login.reported("same") == "a1", "\(login.stderr)")
            let outside = try runTool(
                "/bin/sh", ["-c", "setsid -w vault get a </dev/null; echo other=$?"], environment: box.environment)
            #expect(outside.reported("other") == "4", "\(outside.stderr)")
        }
    }

    @Test("exec's command runs in an empty session keyring: it cannot read the cached key")
    func execCannotReadKey() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo unlock=$?
                description=$(keys | grep -o 'vault:[0-9a-f]*')
                echo outside=$(count)
                vault exec --env A=a -- sh -c 'echo inside=$(grep -c " vault:" /proc/keys); echo value=$A; keyctl search @s user '"$description"' >/dev/null 2>&1; echo search=$?'
                vault set tok --expires-in 1h --refresh-command 'echo refresh=$(grep -c " vault:" /proc/keys) >&2; echo fresh' </dev/null
                echo token=$(setsid -w vault get tok </dev/null)
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("outside") == "1", "the key is there for the caller")
        #expect(result.reported("inside") == "0", "\(result.stdoutText)")
        #expect(result.reported("value") == "a1")
        #expect(result.reported("search") == "1")
        #expect(result.reported("token") == "fresh", "\(result.stderr)")
        #expect(result.reported("refresh") == "0", "a refresh command sees no vault key: \(result.stderr)")
    }

    @Test(
        "an age plugin runs in an empty session keyring: it cannot see the cached key; a key it gave unasked is not cached"
    )
    func pluginCannotSeeKey() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let plugins = AgePluginTests.plugins
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo unlock=$?
                echo outside=$(count)
                "\(plugins)/age-plugin-vaulttest" --generate plain | head -n 1 >"$SANDBOX/plugin-id"
                chmod 600 "$SANDBOX/plugin-id"
                printf v | PATH="\(plugins):$PATH" VAULTTEST_KEYS="$SANDBOX/seen" \
                    VAULT_IDENTITY_FILE="$SANDBOX/plugin-id" vault --file "$SANDBOX/plugin.age" set x; echo set=$?
                echo seen=$(cat "$SANDBOX/seen")
                PATH="\(plugins):$PATH" VAULT_IDENTITY_FILE="$SANDBOX/plugin-id" \
                    vault --file "$SANDBOX/plugin.age" get x </dev/null >/dev/null; echo get=$?
                echo cached=$(count)
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("outside") == "1", "the key is there for the caller")
        #expect(result.reported("set") == "0", "\(result.stderr)")
        #expect(result.reported("seen") == "0", "the plugin saw a vault key: \(result.stdoutText)")
        // The plugin asked nobody anything: its key needed no person, and is not cached.
        #expect(result.reported("get") == "0", "\(result.stderr)")
        #expect(result.reported("cached") == "1", "only the unlocked file's key: \(result.stdoutText)")
    }

    @Test("bad unlock settings are usage errors (exit 2), one line each")
    func badSettings() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment.removeValue(forKey: "VAULT_UNLOCK_TTL")
        vault.environment["VAULT_PASSPHRASE"] = "p"
        try vault.run(["set", "a"], stdin: [1]).expectSuccess()
        let cases: [([String], [String: String], String)] = [
            (["get", "a"], ["VAULT_UNLOCK_TTL": "forever"], "VAULT_UNLOCK_TTL"),
            (["get", "a"], ["VAULT_UNLOCK_TTL": "13h"], "VAULT_UNLOCK_TTL"),
            (["get", "a"], ["VAULT_UNLOCK_SCOPE": "world"], "VAULT_UNLOCK_SCOPE"),
            (["unlock", "--for", "0"], [:], "--for"),
            (["unlock", "--for", "1d"], [:], "--for"),
            (["unlock"], ["VAULT_UNLOCK_TTL": "0"], "VAULT_UNLOCK_TTL is 0"),
            (["unlock", "extra"], [:], "operand"),
        ]
        for (arguments, env, fragment) in cases {
            try vault.run(arguments, env: env).expectFailure(2, fragment)
        }
    }

    @Test(
        "a stale key is never used: rekeyed from another session, a swapped file, a planted key; exit 4 without a terminal, nothing printed"
    )
    func staleKeys() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo unlock=$?
                keyctl session - sh -c 'VAULT_PASSPHRASE="\(Self.passphrase)" VAULT_TO_PASSPHRASE=second vault rekey --passphrase' 2>/dev/null
                echo count=$(count)
                setsid -w vault get a </dev/null > "$SANDBOX/rekeyed.out" 2>&1; echo rekeyed=$?
                VAULT_PASSPHRASE=second vault unlock 2>/dev/null; echo again=$?
                VAULT_FILE="$SANDBOX/other.age" VAULT_PASSPHRASE=third sh -c 'printf x1 | vault set a'
                mv "$SANDBOX/other.age" "$SANDBOX/vault.age"
                setsid -w vault get a </dev/null > "$SANDBOX/swapped.out" 2>&1; echo swapped=$?
                vault lock >/dev/null 2>&1
                VAULT_PASSPHRASE=third vault unlock >/dev/null 2>&1
                description=$(keys | grep -o 'vault:[0-9a-f]*')
                vault lock >/dev/null 2>&1
                printf '\\001\\000\\000\\000\\000\\177\\000\\000\\000ABCDEFGHIJKLMNOP' | keyctl padd user "$description" @s >/dev/null
                echo planted=$(count)
                setsid -w vault get a </dev/null > "$SANDBOX/planted.out" 2>&1; echo planted_get=$?
                echo "planted_doctor=$(vault doctor 2>&1 | grep '^unlock')"
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("count") == "1", "the other session's rekey could not reach this session's key")
        #expect(result.reported("rekeyed") == "4", "\(result.stdoutText)")
        #expect(result.reported("again") == "0")
        #expect(result.reported("swapped") == "4", "\(result.stdoutText)")
        #expect(result.reported("planted") == "1")
        #expect(result.reported("planted_get") == "4", "\(result.stdoutText)")
        // doctor checks the planted key against the header's MAC too: the file is not unlocked.
        let doctor = try #require(result.reported("planted_doctor"))
        #expect(doctor.contains("the vault file is not unlocked") && !doctor.contains("until"), "\(doctor)")
        for name in ["rekeyed", "swapped", "planted"] {
            let output = try String(contentsOfFile: box.path("\(name).out"), encoding: .utf8)
            #expect(output.hasPrefix("vault: ") && output.filter { $0 == "\n" }.count == 1, "\(name): \(output)")
            #expect(!output.contains("a1") && !output.contains("x1"), "\(name): \(output)")
        }
    }

    @Test("vault rekey drops the old cached key; a write through the cache keeps the header and opens with age -d")
    func rekeyAndCachedWrite() throws {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/age")
                ? nil : "/usr/bin/age is not installed (Debian package age)")
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let before = try box.run(Self.prelude + "make_vault")
        #expect(before.status == 0, "\(before.stderr)")
        let header = try Age.header(of: [UInt8](try #require(FileManager.default.contents(atPath: box.vaultFile))))
        let result = try box.run(
            Self.prelude + """
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo unlock=$?
                printf w1 | setsid -w vault set w; echo write=$?
                echo count=$(count)
                VAULT_TO_PASSPHRASE=second setsid -w vault rekey --passphrase </dev/null; echo rekey=$?
                echo after=$(count)
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("write") == "0", "\(result.stderr)")
        #expect(result.reported("count") == "1")
        #expect(result.reported("rekey") == "0", "\(result.stderr)")
        #expect(result.reported("after") == "0", "rekey dropped the key of the header it replaced")
        let rekeyed = [UInt8](try #require(FileManager.default.contents(atPath: box.vaultFile)))
        #expect(try Age.header(of: rekeyed) != header)

        // A cached write, read by stock age.
        let second = try KeyringSandbox.make()
        defer { second.cleanUp() }
        _ = try second.run(Self.prelude + "make_vault")
        let original = try Age.header(of: [UInt8](try #require(FileManager.default.contents(atPath: second.vaultFile))))
        let write = try second.run(
            """
            VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock >/dev/null 2>&1
            printf w1 | setsid -w vault set w; echo write=$?
            """)
        #expect(write.reported("write") == "0", "\(write.stderr)")
        let written = [UInt8](try #require(FileManager.default.contents(atPath: second.vaultFile)))
        #expect(try Age.header(of: written) == original, "the cached write kept the header")
        let age = try runOnTerminal(typing: Self.passphrase, "/usr/bin/age", ["-d", second.vaultFile])
        #expect(age.status == 0, "\(age.stderr)")
        #expect(age.stderr.contains("\"account\":\"w\""), "\(age.stderr)")
    }

    @Test(
        "CI and keys from the environment leave nothing in the keyring; vault unlock in CI exits 2; a key cached earlier is still read in CI"
    )
    func nothingCachedImplicitlyFromEnvironmentOrInCI() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(Self.passphrase)" vault get a >/dev/null; echo env=$(count)
                printf '%s\\n' "\(Self.passphrase)" > "$SANDBOX/pass"; chmod 600 "$SANDBOX/pass"
                VAULT_PASSPHRASE_FILE="$SANDBOX/pass" vault ls >/dev/null; echo file=$(count)
                CI=true VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock 2>"$SANDBOX/ci.err"; echo ci=$?
                echo ci_count=$(count)
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock 2>/dev/null; echo unlock=$?
                echo ci_read=$(CI=true setsid -w vault get b </dev/null)
                """)
        #expect(result.reported("env") == "0", "\(result.stderr)")
        #expect(result.reported("file") == "0")
        #expect(result.reported("ci") == "2")
        #expect(result.reported("ci_count") == "0")
        let ciError = try String(contentsOfFile: box.path("ci.err"), encoding: .utf8)
        #expect(ciError.hasPrefix("vault: ") && ciError.filter { $0 == "\n" }.count == 1, "\(ciError)")
        #expect(ciError.contains("CI"), "\(ciError)")
        #expect(result.reported("unlock") == "0")
        #expect(result.reported("ci_read") == "b1")
    }

    @Test(
        "user scope: a key unlocked in one keyring session is used by another of the same user; nobody may change it; group and others get nothing"
    )
    func userScope() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let result = try box.run(
            Self.prelude + """
                make_vault
                VAULT_UNLOCK_SCOPE=user VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo unlock=$?
                echo "line=$(keys)"
                serial=$(keyctl search @u user "$(keys | grep -o 'vault:[0-9a-f]*')")
                keyctl timeout "$serial" 0 2>/dev/null; echo timeout=$?
                keyctl session - sh -c "keyctl timeout $serial 0" 2>/dev/null; echo other_timeout=$?
                printf x | keyctl pupdate "$serial" 2>/dev/null; echo update=$?
                VAULT_UNLOCK_SCOPE=user VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock; echo again=$?
                echo again_count=$(count)
                echo other=$(keyctl session - sh -c 'setsid -w vault get a </dev/null')
                keyctl session - sh -c 'vault lock' 2>/dev/null; echo lock=$?
                echo after=$(count)
                """)
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        let line = try #require(result.reported("line"))
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first == "0b0b0000", "\(line)")
        // No process of the user, possessor or not, can lift the timeout or replace the key.
        #expect(result.reported("timeout") == "1", "\(result.stdoutText)")
        #expect(result.reported("other_timeout") == "1", "\(result.stdoutText)")
        #expect(result.reported("update") == "1", "\(result.stdoutText)")
        // A second unlock replaces the read-only key rather than failing to update it.
        #expect(result.reported("again") == "0", "\(result.stderr)")
        #expect(result.reported("again_count") == "1", "\(result.stdoutText)")
        #expect(result.reported("other") == "a1", "\(result.stderr)")
        #expect(result.reported("lock") == "0")
        #expect(result.reported("after") == "0")
    }

    @Test(
        "a full key quota (EDQUOT): unlock exits 5 with one line and changes nothing; a prompted get works and caches nothing, silently"
    )
    func keyQuotaFull() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        // The uid's own quota, from its /proc/key-users line ("UID: usage nkeys/nikeys
        // qnkeys/maxkeys qnbytes/maxbytes"), bounds the fill; small user keys in the script's own
        // session keyring, added until the kernel says EDQUOT, use it up. They go with the session.
        let result = try box.runOnTerminal(
            typing: Self.passphrase,
            Self.prelude + """
                make_vault
                max=$(awk -v uid="$(id -u):" '$1 == uid { split($4, k, "/"); print k[2] }' /proc/key-users)
                echo max=$max
                i=0
                while [ "$i" -le "$max" ] && keyctl add user "fill$i" x @s >/dev/null 2>"$SANDBOX/fill.err"; do
                    i=$((i + 1))
                done
                echo filled=$i
                echo refused=$(grep -c 'quota' "$SANDBOX/fill.err")
                linked=$(keyctl rlist @s | wc -w)
                cp "$VAULT_FILE" "$SANDBOX/before.age"
                VAULT_PASSPHRASE="\(Self.passphrase)" vault unlock 2>"$SANDBOX/unlock.err"; echo unlock=$?
                echo count=$(count)
                echo linked_same=$([ "$(keyctl rlist @s | wc -w)" = "$linked" ] && echo yes)
                cmp -s "$VAULT_FILE" "$SANDBOX/before.age"; echo file_same=$?
                vault doctor 2>&1 | grep '^unlock' > "$SANDBOX/doctor.out"
                vault get a 2>"$SANDBOX/get-a.err"; echo
                vault get b 2>"$SANDBOX/get-b.err"; echo
                echo after=$(count)
                """)
        #expect(result.status == 0, "\(result.stderr)")
        let max = try #require(result.reported("max").flatMap { Int($0) }, "no quota line: \(result.stderr)")
        #expect(max > 0)
        let filled = try #require(result.reported("filled").flatMap { Int($0) })
        #expect(filled > 0 && filled < max, "filled \(filled) of \(max)")
        #expect(result.reported("refused") == "1", "the fill ended on EDQUOT: \(result.stderr)")
        // vault unlock: exit 5, one line that says the quota is full and that nothing is cached.
        #expect(result.reported("unlock") == "5", "\(result.stderr)")
        let message = try String(contentsOfFile: box.path("unlock.err"), encoding: .utf8)
        #expect(message.hasPrefix("vault: ") && message.filter { $0 == "\n" }.count == 1, "\(message)")
        #expect(message.contains("key quota is full"), "\(message)")
        #expect(message.contains("nothing is cached"), "\(message)")
        // Nothing else changed: no vault key, no key added or dropped in the session keyring, the file as it was.
        #expect(result.reported("count") == "0")
        #expect(result.reported("linked_same") == "yes", "\(result.stderr)")
        #expect(result.reported("file_same") == "0")
        let doctor = try String(contentsOfFile: box.path("doctor.out"), encoding: .utf8)
        #expect(doctor.contains("unlock          off:") && doctor.contains("key quota is full"), "\(doctor)")
        // A command at the terminal asks, works, and caches nothing, without a word about it:
        // the next command asks again.
        #expect(result.prompts == 2, "\(result.stderr)")
        #expect(result.stderr.contains("a1") && result.stderr.contains("b1"), "\(result.stderr)")
        for name in ["get-a.err", "get-b.err"] {
            let text = try String(contentsOfFile: box.path(name), encoding: .utf8)
            #expect(!text.contains("vault:"), "\(name): \(text)")
        }
        #expect(result.reported("after") == "0")
    }

    @Test(
        "where key system calls fail (a seccomp filter): commands work, unlock exits 5 with one line, doctor explains")
    func kernelRefuses() throws {
        let python = "/usr/bin/python3"
        let check = try runTool(python, ["-c", "import seccomp"])
        try requireComponent(
            check.status == 0 ? nil : "python3-seccomp is not installed (Debian package python3-seccomp)")
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        let filter = box.path("no-keys.py")
        try """
        import errno, os, seccomp, sys
        code = getattr(errno, sys.argv[1])
        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for name in ("add_key", "keyctl", "request_key"):
            rules.add_rule(seccomp.ERRNO(code), name)
        rules.load()
        os.execvp(sys.argv[2], sys.argv[2:])
        """.write(toFile: filter, atomically: true, encoding: .utf8)
        chmod(filter, 0o644)
        for errno in ["ENOSYS", "EPERM"] {
            let result = try box.run(
                Self.prelude + """
                    rm -f "$SANDBOX/vault.age"
                    blocked() { \(python) "$SANDBOX/no-keys.py" \(errno) "$@"; }
                    VAULT_PASSPHRASE="\(Self.passphrase)" blocked sh -c 'printf a1 | vault set a'; echo set=$?
                    echo get=$(VAULT_PASSPHRASE="\(Self.passphrase)" blocked vault get a)
                    VAULT_PASSPHRASE="\(Self.passphrase)" blocked vault unlock 2>"$SANDBOX/unlock.err"; echo unlock=$?
                    blocked vault doctor | grep '^unlock'
                    echo count=$(count)
                    """)
            #expect(result.reported("set") == "0", "\(errno): \(result.stderr)")
            #expect(result.reported("get") == "a1", "\(errno)")
            #expect(result.reported("unlock") == "5", "\(errno)")
            let message = try String(contentsOfFile: box.path("unlock.err"), encoding: .utf8)
            #expect(message.hasPrefix("vault: ") && message.filter { $0 == "\n" }.count == 1, "\(errno): \(message)")
            #expect(message.contains("blocked"), "\(errno): \(message)")
            #expect(result.stdoutText.contains("unlock          off:"), "\(errno): \(result.stdoutText)")
            #expect(result.reported("count") == "0")
        }
        // At a terminal, a prompt still works and caches nothing.
        let terminal = try box.runOnTerminal(
            typing: Self.passphrase,
            "\(python) \"$SANDBOX/no-keys.py\" ENOSYS sh -c 'vault get a; echo; vault get a; echo'; grep -c ' vault:' /proc/keys"
        )
        #expect(terminal.prompts == 2, "\(terminal.stderr)")
    }
}
