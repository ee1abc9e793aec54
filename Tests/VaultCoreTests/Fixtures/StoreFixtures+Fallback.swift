@testable import VaultAgeFile
@testable import VaultCore
@testable import VaultFeatures

// The contract suite against FallbackStore over real stores. The fallback starts with a secret
// of an unrelated service, so every listing also goes through the union.
extension StoreFixture {
    static let fallback: [StoreFixture] = [fallbackOverFiles, fallbackOverSecretService]

    static let fallbackOverFiles = StoreFixture(description: "fallback: file over file", service: "contract") {
        let scratch = try ScratchFiles()
        let store = FallbackStore(primary: scratch.store("primary"), fallback: try seededFallback(scratch))
        return (store, { withExtendedLifetime(scratch) {} })
    }

    /// The Secret Service as the primary store: its fixture's service, lock and clean-up. The
    /// contract lists every service, so no other test may delete keyring items meanwhile.
    static let fallbackOverSecretService = StoreFixture(
        description: "fallback: secret-service over file", service: secretService.service, usesSecretService: true
    ) {
        let (primary, cleanUpKeyring) = try secretService.make()
        let cleanUp: @Sendable () -> Void = { cleanUpKeyring() }
        do {
            let scratch = try ScratchFiles()
            let store = FallbackStore(primary: primary, fallback: try seededFallback(scratch))
            return (
                store,
                {
                    cleanUp()
                    withExtendedLifetime(scratch) {}
                }
            )
        } catch {
            cleanUp()
            throw error
        }
    }

    private static func seededFallback(_ scratch: ScratchFiles) throws -> FileStore {
        let fallback = scratch.store("fallback")
        try fallback.write(try StoreFixture.memory.record("left-behind", [7], service: "unrelated-service"))
        return fallback
    }
}
