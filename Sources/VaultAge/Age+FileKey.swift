internal import Crypto
public import VaultSecureBytes

// Opening a file with a file key known from elsewhere (the kernel keyring's cache, issue 25),
// instead of unwrapping it from a stanza with an identity. Kept apart from Age.swift so that the
// identity model there can change without touching this.

extension Age {
    /// The envelope of the file that starts with `prefix`, opened with a known `fileKey`.
    ///
    /// The key is accepted only if the header's MAC verifies with it (a wrong or stale key
    /// throws `.hmac`, and nothing derived from it is returned). Returns nil when `prefix` does
    /// not hold a whole binary header: the file is ASCII-armored or `prefix` ends inside the
    /// header (the caller then unwraps the key as usual). The payload is not read here.
    public static func envelope(
        ofHeaderIn prefix: [UInt8], fileKey: SecureBytes
    ) throws(AgeError) -> AgeEnvelope? {
        guard !Armor.looksArmored(prefix), let header = try? Header.parse(prefix) else { return nil }
        guard fileKey.count == KeyWrap.fileKeySize else { throw AgeError(kind: .hmac, message: "header MAC mismatch") }
        let key = fileKey.withUnsafeBytes { SymmetricKey(data: $0) }
        guard header.verifyMAC(fileKey: key) else { throw AgeError(kind: .hmac, message: "header MAC mismatch") }
        return AgeEnvelope(header: Array(prefix[..<header.length]), fileKey: key, types: header.stanzas.map(\.kind))
    }

    /// The binary header at the start of `prefix` (through the MAC line), or nil when `prefix`
    /// holds no whole binary header; the bytes a cached file key is looked up by.
    public static func binaryHeader(in prefix: [UInt8]) -> [UInt8]? {
        guard !Armor.looksArmored(prefix), let header = try? Header.parse(prefix) else { return nil }
        return Array(prefix[..<header.length])
    }
}

extension AgeEnvelope {
    /// The file key, for the kernel keyring's cache only: a copy that zeroes itself.
    public var fileKeyBytes: SecureBytes { fileKey.withUnsafeBytes { SecureBytes(copying: $0) } }
}
