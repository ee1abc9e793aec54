import VaultAge
import VaultStorage
import VaultSystem

extension FileStore: RefreshGuardedStore {
    /// Throws `.damaged` when the vault file's header is not the one this user trusts
    /// (``HeaderTrust``), before a read refreshes the living token `name`: the refresh writes the
    /// new tokens to the file's recipients, and the request itself must not be sent on the word of
    /// a file someone else rewrote. As for writes, a file vault has no record of is trusted.
    func checkBeforeRefresh(of name: SecretName) throws(VaultError) {
        guard let trust else { return }
        let target = try FileSystem.resolvingLink(path)
        guard let file = try FileSystem.readRegularFile(target, limit: Self.maximumFileSize) else { return }
        let (header, types) = try ageCall { () throws(AgeError) in
            (try Age.header(of: file), try Age.stanzaTypes(of: file))
        }
        do {
            try trust.verify(header: header, types: types, path: target)
        } catch {
            // The header's remedy (trust it) stays with the error.
            throw error.withMessage("'\(name.account)' is not refreshed, nothing was sent: \(error.message)")
        }
    }
}
