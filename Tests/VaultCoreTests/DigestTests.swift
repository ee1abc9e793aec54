import Testing

@testable import VaultCore
@testable import VaultSystem

/// The one digest helper: its hex must stay what the trust records, journals and lock names
/// already on users' machines were written with (full SHA-256 hex, or its first 16 bytes).
@Suite("Digest")
struct DigestTests {
    /// FIPS 180-2's example: SHA-256("abc").
    static let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test("SHA-256 in lower-case hex, whole or cut, from text, bytes or an incremental hash")
    func hex() {
        #expect(Digest.hex("abc") == Self.abc)
        #expect(Digest.hex(Array("abc".utf8)) == Self.abc)
        #expect(Digest.hex("abc", bytes: 16) == String(Self.abc.prefix(32)))
        #expect(Digest.hex("abc", bytes: 8) == String(Self.abc.prefix(16)))
        #expect(Digest.hex([]) == Self.empty)
        #expect(Digest.hex { _ in } == Self.empty)
    }
}
