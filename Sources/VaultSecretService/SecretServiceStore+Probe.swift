public import VaultStorage

extension SecretServiceStore {
    /// Answers quickly whether the Secret Service can be used: throws `.unavailable` with the
    /// reason (library not loadable, no session bus, no provider, no answer in time, no default
    /// keyring) or `.cannotUnlock` if the default keyring is locked.
    public static func checkAvailable(timeout: Double) throws(VaultError) {
        try checkAvailable(timeout: timeout, library: defaultLibrary)
    }

    static func checkAvailable(timeout: Double, library: String) throws(VaultError) {
        switch probe(timeout: timeout, library: library) {
        case .usable: return
        case .absent(let error), .unusable(let error): throw error
        }
    }

    /// Looks at the Secret Service once: usable, absent (nothing to talk to), or present but
    /// unusable now (locked, too slow, no default keyring).
    package static func probe(timeout: Double, library: String = defaultLibrary) -> SecretServiceProbe {
        let store: SecretServiceStore
        do throws(VaultError) {
            store = try SecretServiceStore(timeout: timeout, library: library)
            try SecretServiceCall.load(library)  // without libsecret, nothing to use: absent
        } catch {
            return error.code == .usage ? .unusable(error) : .absent(error)
        }
        let findings = Findings()
        do throws(VaultError) {
            try store.performUnlocking("checking the Secret Service", findings: findings) { call throws(VaultError) in
                guard let collection = try call.defaultCollection() else {
                    throw VaultError(
                        .unavailable,
                        "the Secret Service has no default keyring (collection)", remedy: .createDefaultKeyring)
                }
                if collection.isLocked {
                    call.findings.record(.lockedKeyring)
                    throw VaultError(.cannotUnlock, "the default keyring is locked", remedy: .unlockKeyring)
                }
            }
            return .usable
        } catch {
            return findings.failure == .absent ? .absent(error) : .unusable(error)
        }
    }

    /// The program that owns the Secret Service's name on the bus, or nil if none can be named.
    package static func provider(timeout: Double, library: String = defaultLibrary) -> SecretServiceProvider? {
        guard let store = try? SecretServiceStore(timeout: timeout, library: library) else { return nil }
        let pid = try? store.perform("naming the Secret Service provider") { call throws(VaultError) -> UInt32 in
            try call.connect()
            return try call.providerProcessID()
        }
        guard let pid, pid > 0 else { return nil }
        return SecretServiceProvider(pid: pid)
    }
}

/// What ``SecretServiceStore/probe(timeout:library:)`` found.
package enum SecretServiceProbe: Sendable {
    /// A provider answers and its default keyring is unlocked.
    case usable
    /// Nothing to talk to: libsecret does not load, no session bus, or nothing owns (or can
    /// start) the Secret Service on it.
    case absent(VaultError)
    /// A provider is there but cannot be used now: locked, too slow, no default keyring.
    case unusable(VaultError)
}
