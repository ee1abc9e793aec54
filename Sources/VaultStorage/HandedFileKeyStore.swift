package import VaultSecureBytes

/// A store whose file key a caller can hand over or take back: the file store, unlocked by
/// `vault unlock` in another session keyring through the Secret Service provider's private
/// interface. Declared with the store protocol so that the provider needs no backend's type.
package protocol HandedFileKeyStore: SecretStore {
    /// Opens the store with `fileKey` from now on; `.cannotUnlock` if it is not the file's key.
    func adopt(fileKey: SecureBytes) throws(VaultError)
    /// Forgets every file key this store holds in memory.
    func forgetKeys()
}
