import CVaultProcess
package import VaultSecureBytes
package import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel key retention service (keyrings(7)), through the `CVaultProcess` shim: the one
/// Swift file that calls it. Failures keep their ``Errno`` (ENOSYS or EPERM under a seccomp
/// filter, EDQUOT over the key quota, EACCES); callers decide what a failure means.
package enum KernelKeyring {
    /// A key's or keyring's serial number, or a special keyring (`session`, `user`...).
    package typealias Serial = Int32

    /// KEY_SPEC_PROCESS_KEYRING: this process's own keyring, gone when it exits.
    package static let process: Serial = -2
    /// KEY_SPEC_SESSION_KEYRING: the calling process's session keyring.
    package static let session: Serial = -3
    /// KEY_SPEC_USER_KEYRING: the caller's user keyring (`_uid.UID`).
    package static let user: Serial = -4
    /// KEY_SPEC_USER_SESSION_KEYRING: the user-session keyring (`_uid_ses.UID`) that processes
    /// without a session keyring of their own share.
    package static let userSession: Serial = -5

    // keyctl(2) operations, from <linux/keyctl.h>.
    private static let getKeyringID: Int32 = 0
    private static let joinSessionKeyring: Int32 = 1
    private static let update: Int32 = 2
    private static let setPermissions: Int32 = 5
    private static let describeOperation: Int32 = 6
    private static let linkOperation: Int32 = 8
    private static let unlinkOperation: Int32 = 9
    private static let searchOperation: Int32 = 10
    private static let readOperation: Int32 = 11
    private static let setTimeout: Int32 = 15
    private static let sessionToParentOperation: Int32 = 18
    private static let invalidateOperation: Int32 = 21

    /// ENOKEY: no such key (a search that found nothing).
    static let noKey = Errno(rawValue: ENOKEY)

    private static func keyctl(
        _ operation: Int32, _ a2: UInt, _ a3: UInt = 0, _ a4: UInt = 0, _ a5: UInt = 0
    ) -> Result<Int, Errno> {
        valueOrErrno { CVaultProcess_keyctl(operation, a2, a3, a4, a5) }
    }

    private static func argument(_ serial: Serial) -> UInt { UInt(bitPattern: Int(serial)) }

    /// The serial of a special keyring, without creating it.
    package static func id(of special: Serial) -> Result<Serial, Errno> {
        keyctl(getKeyringID, argument(special), 0).map { Serial(truncatingIfNeeded: $0) }
    }

    /// A key's type, owner, permission mask and description (KEYCTL_DESCRIBE).
    package struct Description {
        package var type: String
        package var owner: UInt32
        package var permissions: UInt32
        package var text: String
    }

    package static func describe(_ serial: Serial) -> Result<Description, Errno> {
        var buffer = [CChar](repeating: 0, count: 4096)
        let result = buffer.withUnsafeMutableBufferPointer { bytes in
            keyctl(
                describeOperation, argument(serial), UInt(bitPattern: bytes.baseAddress), UInt(bytes.count))
        }
        return result.flatMap { length in
            // "type;uid;gid;perm;description", NUL-terminated.
            let text = String(
                decoding: buffer.prefix(max(0, min(length, buffer.count) - 1)).map { UInt8(bitPattern: $0) },
                as: UTF8.self)
            let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let owner = UInt32(fields[1]), let permissions = UInt32(fields[3], radix: 16)
            else { return .failure(Errno(rawValue: EINVAL)) }
            return .success(
                Description(type: String(fields[0]), owner: owner, permissions: permissions, text: String(fields[4])))
        }
    }

    /// The `user` key `description` in `keyring` or a keyring it links, or nil if there is none.
    package static func search(_ keyring: Serial, description: String) -> Result<Serial?, Errno> {
        let found = description.withCString { text in
            "user".withCString { type in
                keyctl(searchOperation, argument(keyring), UInt(bitPattern: type), UInt(bitPattern: text), 0)
            }
        }
        switch found {
        case .success(let serial): return .success(Serial(truncatingIfNeeded: serial))
        case .failure(noKey), .failure(Errno(rawValue: EKEYEXPIRED)), .failure(Errno(rawValue: EKEYREVOKED)):
            return .success(nil)
        case .failure(let errno): return .failure(errno)
        }
    }

    /// A key's payload, in memory that zeroes itself.
    package static func read(_ serial: Serial, limit: Int = 4096) -> Result<SecureBytes, Errno> {
        var payload = SecureBytes(zeros: limit)
        let result = payload.withUnsafeMutableBytes { bytes in
            keyctl(readOperation, argument(serial), UInt(bitPattern: bytes.baseAddress), UInt(bytes.count))
        }
        return result.flatMap { length in
            guard length <= limit else { return .failure(Errno(rawValue: EMSGSIZE)) }
            return .success(SecureBytes(payload.prefix(length)))
        }
    }

    /// The serials a keyring links (KEYCTL_READ on a keyring).
    package static func contents(_ keyring: Serial) -> Result<[Serial], Errno> {
        var serials = [Serial](repeating: 0, count: 512)
        let result = serials.withUnsafeMutableBytes { bytes in
            keyctl(readOperation, argument(keyring), UInt(bitPattern: bytes.baseAddress), UInt(bytes.count))
        }
        return result.map { length in Array(serials.prefix(min(length, serials.count * 4) / 4)) }
    }

    /// Stores `payload` as the `user` key `description` in `keyring`, readable as `permissions`
    /// says and removed by the kernel after `timeout` seconds.
    ///
    /// The key is created (or an existing one of that description taken over) with a one-byte
    /// placeholder and restricted to its possessor (this process) before it is given the payload
    /// (add_key's default mask would let the user read it for a moment), then given its timeout
    /// and linked; only then does it get `permissions`, which may drop the write and set-attribute
    /// rights those steps needed (so that no process can replace the payload or lift the
    /// timeout afterwards). If a step fails, the key is invalidated.
    ///
    /// A key meant for another keyring than the session's (the user keyring) is made in this
    /// process's own keyring, then linked where it belongs: the kernel counts a process as the
    /// possessor of a key only if its own keyrings lead to it, and the session keyring need not
    /// link the user keyring (sudo, `keyctl session -`).
    /// Every right for the possessor, none for anyone else: what a key has while it is made.
    package static let possessorOnly: UInt32 = 0x3f00_0000

    package static func add(
        description: String, payload: SecureBytes, keyring: Serial, permissions: UInt32, timeout: UInt32
    ) -> Result<Serial, Errno> {
        var placeholder: UInt8 = 0
        let staging = keyring == session ? session : process
        // In its own keyring a new key takes an existing one's place by update; linked into
        // another, it displaces the existing one's link (found here, before it does).
        var displaced: Serial?
        if staging != keyring, case .success(let found?) = search(keyring, description: description) {
            displaced = found
        }
        let created = description.withCString { text in
            valueOrErrno { CVaultProcess_addUserKey(text, &placeholder, 1, Int(staging)) }
        }
        return created.flatMap { serial in
            let key = Serial(truncatingIfNeeded: serial)
            // The timeout comes last: updating a user key's payload resets its expiry.
            let stored = keyctl(setPermissions, argument(key), UInt(possessorOnly))
                .flatMap { _ in
                    payload.withUnsafeBytes { bytes in
                        keyctl(update, argument(key), UInt(bitPattern: bytes.baseAddress), UInt(bytes.count))
                    }
                }
                .flatMap { _ in keyctl(setTimeout, argument(key), UInt(timeout)) }
                .flatMap { _ in
                    staging == keyring ? .success(0) : keyctl(linkOperation, argument(key), argument(keyring))
                }
                .flatMap { _ in
                    permissions == possessorOnly
                        ? .success(0) : keyctl(setPermissions, argument(key), UInt(permissions))
                }
            if staging != keyring { _ = keyctl(unlinkOperation, argument(key), argument(staging)) }
            if case .failure = stored { _ = invalidate(key) }
            // The link displaced an earlier key of that description from `keyring`; it would
            // live on, unlinked, until the kernel collects it, payload and all: end it now.
            if case .success = stored, let displaced, displaced != key { _ = invalidate(displaced) }
            return stored.map { _ in key }
        }
    }

    /// Removes a key from every keyring now (KEYCTL_INVALIDATE).
    @discardableResult
    package static func invalidate(_ serial: Serial) -> Result<Void, Errno> {
        keyctl(invalidateOperation, argument(serial)).map { _ in () }
    }

    /// Gives the calling process a new, empty, anonymous session keyring.
    package static func joinNewSession() -> Result<Serial, Errno> {
        keyctl(joinSessionKeyring, 0).map { Serial(truncatingIfNeeded: $0) }
    }

    /// Links `key` (a keyring too) into `keyring`.
    package static func link(_ key: Serial, into keyring: Serial) -> Result<Void, Errno> {
        keyctl(linkOperation, argument(key), argument(keyring)).map { _ in () }
    }

    /// Makes the caller's session keyring the parent process's too, from the parent's next
    /// return to user space (KEYCTL_SESSION_TO_PARENT; EPERM for a multi-threaded, setuid or
    /// other user's parent).
    package static func sessionToParent() -> Result<Void, Errno> {
        keyctl(sessionToParentOperation, 0).map { _ in () }
    }
}
