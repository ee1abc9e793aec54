import VaultAgeFile
import VaultSecureBytes
import VaultStorage

// Locking and unlocking (``SecretServiceServer``): the collections' state, and the private
// interface org.vault.Provider1 that `vault unlock` and `vault lock` call from another session.
extension SecretServiceServer {
    // MARK: - Locking

    /// Whether the collections are locked now: after Lock, or while the store cannot be opened
    /// without a person.
    var isLocked: Bool {
        if lockedByRequest { return true }
        do {
            _ = try items.snapshot()
            return false
        } catch {
            return error.code == .cannotUnlock
        }
    }

    /// Unlocks if the store opens without a person; whether it did.
    func tryUnlock() -> Bool {
        do {
            _ = try items.snapshot()
        } catch {
            return false
        }
        lockedByRequest = false
        return true
    }

    /// Locks until the next successful Unlock; the signals that say so.
    func lock() -> [BusSignal] {
        lockedByRequest = true
        handedKeyExpires = nil
        (items.store as? any HandedFileKeyStore)?.forgetKeys()
        return [serviceSignal("CollectionChanged", ProviderStore.loginCollection)]
    }

    /// Forgets a handed-over key whose time has run out, before a call could use it; the store
    /// then opens only as it would without it.
    func forgetExpiredKey() {
        guard let expires = handedKeyExpires, Timestamp.now() >= expires else { return }
        handedKeyExpires = nil
        (items.store as? any HandedFileKeyStore)?.forgetKeys()
    }

    func providerCall(_ call: BusCall) throws(BusFailure) -> BusAnswer {
        switch call.method {
        case "UnlockWithFileKey":
            guard case .bytes(let key) = call.arguments[0], case .uint64(let seconds) = call.arguments[1], seconds > 0
            else { throw invalid("UnlockWithFileKey takes (ay key, t seconds), seconds at least 1") }
            guard let store = items.store as? any HandedFileKeyStore else {
                throw BusFailure(name: ProviderError.notSupported, message: "this store has no file key")
            }
            do {
                try store.adopt(fileKey: key)
            } catch {
                throw BusFailure(name: ProviderError.isLocked, message: error.message)
            }
            lockedByRequest = false
            handedKeyExpires = Timestamp.now().adding(seconds: Int64(min(seconds, UInt64(UnlockPolicy.maximumSeconds))))
            return BusAnswer(
                reply: .success([]), signals: [serviceSignal("CollectionChanged", ProviderStore.loginCollection)])
        case "Lock":
            return BusAnswer(reply: .success([]), signals: lock())
        default:
            throw BusFailure(name: ProviderError.notSupported, message: "\(call.method) is not supported")
        }
    }

    func requireUnlocked() throws(BusFailure) {
        if lockedByRequest { throw BusFailure(name: ProviderError.isLocked, message: "the collection is locked") }
    }
}
