public import VaultAge
public import VaultAgeFile
import VaultSecureBytes
public import VaultStorage

/// One version of a vault file as git holds it (a blob git hands to a textconv or a merge
/// driver): its secrets and the envelope that opened it.
public struct VaultFileVersion {
    /// The secrets, sorted by name.
    public let records: [SecretRecord]
    /// The header and file key; nil for an empty blob (git's stand-in for a file a side lacks).
    public let envelope: AgeEnvelope?

    /// Opens `file`. An envelope from `known` whose header the file starts with opens it without
    /// unwrapping its key again (no second scrypt for a passphrase file); otherwise `keys`'
    /// identities do. `label` names the version in messages.
    public static func open(
        _ file: [UInt8], keys: FileKeys, known: [AgeEnvelope] = [], label: String
    ) throws(VaultError) -> VaultFileVersion {
        guard !file.isEmpty else { return VaultFileVersion(records: [], envelope: nil) }
        var opened: (plaintext: SecureBytes, envelope: AgeEnvelope)?
        for envelope in known where opened == nil {
            guard
                var reader = try ageCall(
                    label, keys,
                    { () throws(AgeError) in
                        try AgePayloadReader(prefix: file, fileSize: file.count, envelope: envelope)
                    })
            else { continue }
            opened = (
                try ageCall(label, keys) { () throws(AgeError) in try reader.decryptRemaining(of: file) }, envelope
            )
        }
        if opened == nil {
            let identities = try keys.identities()
            opened = try ageCall(label, keys) { () throws(AgeError) in try Age.open(file, identities: identities) }
        }
        guard let opened else { throw VaultError(.other, "\(label) could not be opened") }
        let records = try VaultDocument.decode(opened.plaintext).sorted { $0.name < $1.name }
        return VaultFileVersion(records: records, envelope: opened.envelope)
    }

    /// The secrets by name.
    var byName: [SecretName: SecretRecord] {
        Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Turns the age layer's errors into vault errors that name the version (``AgeFailureMap``).
    private static func ageCall<T>(
        _ label: String, _ keys: FileKeys, _ body: () throws(AgeError) -> T
    ) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            throw AgeFailureMap.vaultError(error, opening: label, keyOrigin: keys.origin, naming: .version)
        }
    }
}
