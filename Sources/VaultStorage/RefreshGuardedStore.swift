/// A store that checks itself before a living token kept in it is refreshed.
///
/// The refreshed tokens are written to the store, and the refresh request goes out on the word of
/// what it holds; a store whose readers are chosen by its own content (a vault file's recipients,
/// ``HeaderTrust``) refuses when that content is not the one this user trusts.
package protocol RefreshGuardedStore: SecretStore {
    /// Throws `.damaged` when the refresh of `name` must not go ahead.
    func checkBeforeRefresh(of name: SecretName) throws(VaultError)
}
