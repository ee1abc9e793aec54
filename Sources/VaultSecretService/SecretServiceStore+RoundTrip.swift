package import VaultStorage

extension SecretServiceStore {
    /// What `vault doctor` checks beyond ``probe(timeout:library:)``: a search and the session's
    /// key exchange, which every read and write needs. A provider can answer the probe and still
    /// fail here (KWallet without QCA's OpenSSL plug-in fails every key exchange); then this
    /// throws the provider's problem in plain words. Writes nothing.
    package static func roundTrip(timeout: Double, library: String = defaultLibrary) throws(VaultError) {
        let store = try SecretServiceStore(timeout: timeout, library: library)
        try store.performUnlocking("exchanging a session key with the Secret Service") { call throws(VaultError) in
            _ = try call.search(SecretServiceItems.query(service: "vault doctor"))
            try call.openSession()
        }
    }
}
