// Fixtures for the real backends, kept apart so each backend's file stays its own.
extension StoreFixture {
    static var extra: [StoreFixture] { [fileWithIdentity, fileWithPassphrase, secretService, openbao] + fallback }
}
