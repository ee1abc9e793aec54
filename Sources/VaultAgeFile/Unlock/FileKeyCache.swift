public import VaultAge
import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Unlocked age file keys kept by the kernel (issue 25, README "Unlocking"): a `user` key named
/// `vault:` and the SHA-256 of the file's binary header, holding the 16-byte file key and when
/// it expires, with a timeout the kernel enforces. Never a passphrase or an identity: a cached
/// key opens one file, and only until its header changes (`vault rekey`).
///
/// A key is found by the header, not the path, so a copy of the file elsewhere finds it, and a
/// file whose header changed never does; the header's MAC is checked with the key before
/// anything is decrypted, so a key that does not belong to the header is never used.
///
/// Reading is allowed whatever the policy; where the kernel refuses (a seccomp filter, the key
/// quota, a namespace) a lookup finds nothing and an implicit store does nothing, so every
/// command works as it does without the cache. Only ``store(_:seconds:)`` (`vault unlock`)
/// reports a refusal.
public struct FileKeyCache: Sendable {
    public let policy: UnlockPolicy

    public init(policy: UnlockPolicy) {
        self.policy = policy
    }

    /// What every cached key's description starts with.
    public static let descriptionPrefix = "vault:"
    private static let payloadVersion: UInt8 = 1
    /// Session scope: the possessor may view, read, write, search, link and set attributes;
    /// the user, group and others nothing.
    static let sessionPermissions: UInt32 = KernelKeyring.possessorOnly
    /// User scope: every process of the user may view, read and search (to find, read and
    /// invalidate the key), also one whose session keyring does not link the user keyring (sudo,
    /// `keyctl session -`), which the kernel does not count as a possessor; group and others
    /// nothing. Once stored (``KernelKeyring/add``) no one may write the key or set its
    /// attributes: no process can lift its timeout or replace its payload. (A session-scope key
    /// is possessed by its login alone.)
    static let userPermissions: UInt32 = 0x0b0b_0000

    /// The description a file's key is cached under.
    static func description(header: [UInt8]) -> String { descriptionPrefix + Digest.hex(header) }

    // MARK: - Reading

    /// The cached file key for `header` and when it expires, or nil (also where the kernel refuses).
    private func lookup(header: [UInt8]) -> (key: SecureBytes, expires: Timestamp)? {
        let description = Self.description(header: header)
        for keyring in [KernelKeyring.session, KernelKeyring.user] {
            guard case .success(let serial?) = KernelKeyring.search(keyring, description: description),
                case .success(let payload) = KernelKeyring.read(serial),
                let decoded = Self.decode(payload)
            else { continue }
            return decoded
        }
        return nil
    }

    /// The envelope of the file that starts with `prefix`, from a cached key whose header MAC
    /// verifies; nil when there is none, or the one found does not belong to this header (then
    /// nothing derived from it leaves this function).
    public func envelope(forFileStartingWith prefix: [UInt8]) -> AgeEnvelope? {
        verified(forFileStartingWith: prefix)?.envelope
    }

    /// Until when the key cached for the file that starts with `prefix` is kept, if one is and
    /// its header MAC verifies: a key planted under the right description is not an unlock.
    public func unlockedUntil(fileStartingWith prefix: [UInt8]) -> Timestamp? {
        verified(forFileStartingWith: prefix)?.expires
    }

    private func verified(forFileStartingWith prefix: [UInt8]) -> (envelope: AgeEnvelope, expires: Timestamp)? {
        guard let header = Age.binaryHeader(in: prefix), let cached = lookup(header: header) else { return nil }
        do {
            guard let envelope = try Age.envelope(ofHeaderIn: prefix, fileKey: cached.key) else { return nil }
            return (envelope, cached.expires)
        } catch {
            // Not this header's key (the digest matched, the MAC did not): as if none were cached.
            return nil
        }
    }

    // MARK: - Storing

    /// Caches a key that a person unlocked (a passphrase typed at the prompt): only when the
    /// policy allows it, and silently not where the kernel refuses.
    public func rememberUnlocked(_ envelope: AgeEnvelope, neededPerson: Bool) {
        guard neededPerson, policy.mayStore, policy.seconds > 0 else { return }
        _ = try? store(envelope, seconds: policy.seconds)
    }

    /// Caches `envelope`'s file key for `seconds` (`vault unlock`); throws `.usage` in CI and
    /// `.unavailable` where the kernel refuses, naming the reason and that nothing was cached.
    public func store(_ envelope: AgeEnvelope, seconds: Int64) throws(VaultError) {
        guard policy.mayStore else {
            throw VaultError(.usage, "keys are never cached in CI (CI is set)")
        }
        do {
            try storeInKernel(envelope, seconds: seconds)
        } catch {
            // A failed add leaves nothing behind (KernelKeyring.add invalidates its placeholder).
            throw error.withMessage(error.message + "; nothing is cached, each command unlocks the file as before")
        }
    }

    private func storeInKernel(_ envelope: AgeEnvelope, seconds: Int64) throws(VaultError) {
        let seconds = min(max(seconds, 1), UnlockPolicy.maximumSeconds)
        let expires = Timestamp.now().adding(seconds: seconds)
        var keyring = KernelKeyring.user
        var handOver = false
        if policy.scope == .session { (keyring, handOver) = try Self.ownSessionKeyring() }
        let result = KernelKeyring.add(
            description: Self.description(header: envelope.headerBytes),
            payload: Self.encode(envelope.fileKeyBytes, expires: expires), keyring: keyring,
            permissions: policy.scope == .user ? Self.userPermissions : Self.sessionPermissions,
            timeout: UInt32(seconds))
        let serial: KernelKeyring.Serial
        switch result {
        case .success(let stored): serial = stored
        case .failure(let errno): throw Self.refusal("keep the key", errno)
        }
        if handOver, case .failure(let errno) = KernelKeyring.sessionToParent() {
            // The key would die with this process; say so rather than pretend it is cached.
            KernelKeyring.invalidate(serial)
            throw Self.refusal("give the calling process a session keyring of its own", errno)
        }
    }

    /// Forgets the cached key of `header` (after `vault rekey`), wherever it is.
    public func forget(header: [UInt8]) {
        let description = Self.description(header: header)
        for keyring in [KernelKeyring.session, KernelKeyring.user] {
            if case .success(let serial?) = KernelKeyring.search(keyring, description: description) {
                KernelKeyring.invalidate(serial)
            }
        }
    }

    /// Forgets every cached vault key this process can reach (`vault lock`); returns how many.
    public static func forgetAll() throws(VaultError) -> Int {
        var forgotten = 0
        for keyring in [KernelKeyring.session, KernelKeyring.user] {
            let serials: [KernelKeyring.Serial]
            switch KernelKeyring.contents(keyring) {
            case .success(let found): serials = found
            case .failure(let errno): throw refusal("read the keyring", errno)
            }
            for serial in serials {
                guard case .success(let key) = KernelKeyring.describe(serial), key.type == "user",
                    key.text.hasPrefix(descriptionPrefix)
                else { continue }
                if case .success = KernelKeyring.invalidate(serial) { forgotten += 1 }
            }
        }
        return forgotten
    }

    // MARK: - The login's session keyring

    /// Whether this process has a session keyring of its own, and if not why.
    public enum SessionKeyring: Sendable, Equatable {
        /// Its own (pam_keyinit, `keyctl session`, or one vault gave the login earlier).
        case own
        /// The user-session keyring `_uid_ses.UID`, shared by every process of the user that has
        /// none of its own (an SSH login or a cron job where PAM does not run pam_keyinit).
        case userSession
        /// One that belongs to another user (inherited through sudo, su or setpriv).
        case otherUser
    }

    /// Which ``SessionKeyring`` case applies, or why the kernel will not say.
    public static func sessionKeyring() -> Result<SessionKeyring, VaultError> {
        let session: KernelKeyring.Serial
        switch KernelKeyring.id(of: KernelKeyring.session) {
        case .success(let serial): session = serial
        case .failure(let errno): return .failure(refusal("find the session keyring", errno))
        }
        if case .success(let shared) = KernelKeyring.id(of: KernelKeyring.userSession), shared == session {
            return .success(.userSession)
        }
        if case .success(let description) = KernelKeyring.describe(session), description.owner != getuid() {
            return .success(.otherUser)
        }
        return .success(.own)
    }

    /// A session keyring to store in that only this login possesses: the current one when it is
    /// the process's own; else a new one (linking the user keyring, as pam_keyinit's does), which
    /// must then be handed to the parent process once the key is in it, as `keyctl new_session`
    /// does, so that the login's next commands have it.
    private static func ownSessionKeyring() throws(VaultError) -> (KernelKeyring.Serial, handOver: Bool) {
        switch sessionKeyring() {
        case .failure(let error): throw error
        case .success(.own): return (KernelKeyring.session, false)
        case .success(.otherUser):
            // The kernel hands a keyring to the parent only when the parent's own belongs to the
            // same user (keyctl(2), KEYCTL_SESSION_TO_PARENT): a key stored here would die with
            // this process.
            throw VaultError(
                .unavailable,
                "the session keyring belongs to another user (sudo, su), so a session-scope key cannot outlive this command"
            )
        case .success(.userSession):
            if case .failure(let errno) = KernelKeyring.joinNewSession() {
                throw refusal("make a session keyring", errno)
            }
            _ = KernelKeyring.link(KernelKeyring.user, into: KernelKeyring.session)
            return (KernelKeyring.session, true)
        }
    }

    /// Why the kernel will not keep a key here, or nil when it will: tried with a throw-away key
    /// in this process's own keyring (which dies with it), so the key quota counts too.
    public static func probe() -> VaultError? {
        let added = KernelKeyring.add(
            description: descriptionPrefix + "probe", payload: SecureBytes(zeros: 1), keyring: KernelKeyring.process,
            permissions: sessionPermissions, timeout: 1)
        switch added {
        case .success(let serial):
            KernelKeyring.invalidate(serial)
            return nil
        case .failure(let errno):
            return refusal("keep a key", errno)
        }
    }

    // MARK: - Children

    /// Gives this process a new, empty session keyring, so that what it starts next (`exec`'s
    /// command, a refresh command) cannot reach a session-scope key. Where the kernel refuses
    /// there is nothing to hide.
    public static func isolateChildren() {
        _ = KernelKeyring.joinNewSession()
    }

    // MARK: - Payload

    /// Version, expiry (big-endian seconds since 1970), file key.
    static func encode(_ fileKey: SecureBytes, expires: Timestamp) -> SecureBytes {
        var payload = SecureBytes()
        payload.append(payloadVersion)
        let seconds = UInt64(bitPattern: expires.secondsSince1970)
        for shift in stride(from: 56, through: 0, by: -8) {
            payload.append(UInt8(truncatingIfNeeded: seconds >> shift))
        }
        fileKey.withUnsafeBytes { payload.append(contentsOf: $0) }
        return payload
    }

    static func decode(_ payload: SecureBytes) -> (key: SecureBytes, expires: Timestamp)? {
        guard payload.count == 1 + 8 + 16, payload[0] == payloadVersion else { return nil }
        var seconds: UInt64 = 0
        for index in 1...8 { seconds = seconds << 8 | UInt64(payload[index]) }
        let key = payload.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[9...])) }
        return (key, Timestamp(secondsSince1970: Int64(bitPattern: seconds)))
    }

    /// The error for a refusal of the kernel's, naming the reason.
    static func refusal(_ what: String, _ errno: Errno) -> VaultError {
        let why: String
        switch errno.rawValue {
        case ENOSYS, EPERM:
            why = "the kernel key retention service is blocked here (\(errno); a seccomp filter, as in containers?)"
        case EDQUOT: why = "this user's key quota is full (\(errno), as /proc/key-users shows)"
        default: why = "\(errno)"
        }
        return VaultError(.unavailable, "cannot \(what) in the kernel keyring: \(why)", errno: errno)
    }
}
