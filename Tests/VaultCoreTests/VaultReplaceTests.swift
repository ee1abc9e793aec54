import Testing
import VaultCore
import VaultSecureBytes

@testable import VaultFeatures
@testable import VaultStorage

/// `Vault.set` hands the store one replacement, so that a store which finds the old metadata
/// without the old value (the Secret Service) never reads the secret it replaces.
@Suite("Vault set through SecretStore.replace")
struct VaultReplaceTests {
    @Test("set replaces in one store call, keeping the creation time, and reads nothing")
    func setReplaces() throws {
        let store = RecordingStore()
        var clock: Int64 = 1_000
        let vault = Vault(store: store, now: { Timestamp(secondsSince1970: clock) })
        let name = try SecretName(service: "vault", account: "token")
        try vault.set(name, value: Array("first".utf8))
        clock = 2_000
        try vault.set(name, value: Array("second".utf8), expires: Timestamp(secondsSince1970: 3_000))
        #expect(store.calls == ["replace", "replace"])
        let back = try #require(try store.inner.read(name))
        #expect(back.value == Array("second".utf8))
        #expect(
            back.metadata
                == SecretMetadata(
                    created: Timestamp(secondsSince1970: 1_000), updated: Timestamp(secondsSince1970: 2_000),
                    expires: Timestamp(secondsSince1970: 3_000)))
    }
}

/// A memory store that records which of its operations are called.
private final class RecordingStore: SecretStore {
    let inner = MemoryStore()
    private(set) var calls: [String] = []

    var label: String { "recording" }

    func read(_ name: SecretName) throws(VaultError) -> SecretRecord? {
        calls.append("read")
        return try inner.read(name)
    }

    func write(_ record: SecretRecord) throws(VaultError) {
        calls.append("write")
        try inner.write(record)
    }

    func replace(
        _ name: SecretName, value: SecureBytes, metadata: (SecretMetadata?) -> SecretMetadata
    ) throws(VaultError) -> SecretMetadata? {
        calls.append("replace")
        let existing = try inner.read(name)?.metadata
        try inner.write(SecretRecord(name: name, value: value, metadata: metadata(existing)))
        return existing
    }

    func delete(_ name: SecretName) throws(VaultError) -> Bool {
        calls.append("delete")
        return try inner.delete(name)
    }

    func list(service: String?) throws(VaultError) -> [SecretEntry] {
        calls.append("list")
        return try inner.list(service: service)
    }
}
