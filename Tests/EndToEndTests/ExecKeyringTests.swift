import Foundation
import Testing
import VaultTestSupport

/// The review's attack on `vault exec` (issue 36): a command that calls KEYCTL_SESSION_TO_PARENT
/// to hand a keyring of its own to its parent, keeps a process in that keyring, and waits for the
/// user's next `vault unlock` in the same shell to read the file key. vault stays the command's
/// parent and refuses the keyring; the shell's own keyring gets the key.
@Suite("exec: a command cannot hand a keyring to the shell")
struct ExecKeyringTests {
    /// Joins a new session keyring, gives it to its parent, and leaves a process in it that, once
    /// `$SANDBOX/unlocked` exists, writes how many vault keys it can see to `$SANDBOX/verdict`.
    static let attack = #"""
        import ctypes, errno, os, platform, sys, time
        libc = ctypes.CDLL(None, use_errno=True)
        number = {"x86_64": 250, "aarch64": 219}[platform.machine()]
        def keyctl(operation, argument=0):
            result = libc.syscall(ctypes.c_long(number), ctypes.c_long(operation), ctypes.c_ulong(argument),
                                  ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
            return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
        print("join=" + keyctl(1))          # KEYCTL_JOIN_SESSION_KEYRING, anonymous
        print("to_parent=" + keyctl(18))    # KEYCTL_SESSION_TO_PARENT
        sys.stdout.flush()
        if os.fork() == 0:
            os.setsid()
            sandbox = os.environ["SANDBOX"]
            for _ in range(2400):
                if os.path.exists(sandbox + "/unlocked"):
                    break
                time.sleep(0.05)
            seen = sum(" vault:" in line for line in open("/proc/keys"))
            with open(sandbox + "/verdict.tmp", "w") as verdict:
                verdict.write("stolen=%d\n" % seen)
            os.rename(sandbox + "/verdict.tmp", sandbox + "/verdict")
            os._exit(0)
        """#

    @Test("KEYCTL_SESSION_TO_PARENT from the command fails; the next vault unlock's key stays out of its reach")
    func sessionToParent() throws {
        let box = try KeyringSandbox.make()
        defer { box.cleanUp() }
        try Data(Self.attack.utf8).write(to: URL(fileURLWithPath: box.path("attack.py")))
        let result = try box.run(
            UnlockTests.prelude + """
                make_vault
                VAULT_PASSPHRASE="\(UnlockTests.passphrase)" vault exec --env A=a -- python3 "$SANDBOX/attack.py"
                VAULT_PASSPHRASE="\(UnlockTests.passphrase)" vault unlock; echo unlock=$?
                echo shell=$(count)
                touch "$SANDBOX/unlocked"
                i=0; while [ ! -f "$SANDBOX/verdict" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done
                cat "$SANDBOX/verdict"
                """)
        #expect(result.reported("join") == "ok", "\(result.stdoutText) \(result.stderr)")
        // vault has a second thread while its command runs: the kernel refuses the keyring.
        #expect(result.reported("to_parent") == "EPERM", "\(result.stdoutText)")
        #expect(result.reported("unlock") == "0", "\(result.stderr)")
        #expect(result.reported("shell") == "1", "the shell holds the key it unlocked")
        #expect(result.reported("stolen") == "0", "the command's process read the file key: \(result.stdoutText)")
    }
}
