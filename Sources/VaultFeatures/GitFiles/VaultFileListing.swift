import VaultAge
public import VaultAgeFile
public import VaultStorage
import VaultSystem

/// What git shows of a vault file in place of its ciphertext (its textconv): one line per
/// secret, never a value.
///
/// ```
/// # vault file: 2 secrets, encrypted to 2 age public keys (header 3f1c0e9a2b7d); fingerprints are keyed by the file key and all change at a rekey
/// vault/npm-token created=2026-11-21T10:04:48Z updated=2026-11-21T10:04:48Z expires=- fingerprint=8c1e5a0b7f3d29e4
/// ```
/// The fingerprint is an HMAC of the secret's name and value under a key derived from the file
/// key (``VaultAge/AgeEnvelope/keyedDigest(of:context:label:)``): it shows whether a value
/// changed between two versions, nobody without the key can test a guess against it, and two
/// secrets that hold the same value show different fingerprints, so a diff does not reveal reuse.
public enum VaultFileListing {
    /// The HKDF label of the fingerprint key: vault's own, so it derives nothing age uses
    /// (v2: the name is bound in).
    static let fingerprintLabel = "vault git fingerprint v2"

    /// The fingerprint of `record` under `envelope`'s file key: 8 bytes in hex.
    static func fingerprint(of record: SecretRecord, envelope: AgeEnvelope) -> String {
        // The service's length first, so that the pair reads one way whatever the names hold.
        let service = Array(record.name.service.utf8)
        let name =
            withUnsafeBytes(of: UInt64(service.count).bigEndian) { Array($0) } + service
            + Array(record.name.account.utf8)
        return envelope.keyedDigest(of: record.value, context: name, label: fingerprintLabel).prefix(8)
            .map { hexByte($0) }.joined()
    }

    /// The listing of an opened version.
    public static func text(of version: VaultFileVersion) -> String {
        guard let envelope = version.envelope else { return "# vault file: empty\n" }
        let count = version.records.count
        var lines = [
            "# vault file: \(count) secret\(count == 1 ? "" : "s"), encrypted to "
                + "\(HeaderTrust.describe(envelope.stanzaTypes)) (header \(Digest.hex(envelope.headerBytes).prefix(12))); "
                + "fingerprints are keyed by the file key and all change at a rekey"
        ]
        for record in version.records {
            let metadata = record.metadata
            let fingerprint = fingerprint(of: record, envelope: envelope)
            lines.append(
                "\(record.name) created=\(metadata.created.rfc3339) updated=\(metadata.updated.rfc3339) "
                    + "expires=\(metadata.expires?.rfc3339 ?? "-") fingerprint=\(fingerprint)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one line shown instead of the listing when the reader cannot open the file, with
    /// `reason` as the caller words it.
    static func unreadable(_ reason: String, size: Int) -> String {
        "# vault file (\(size) bytes): not shown, it cannot be opened here: \(reason)\n"
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension VaultFileListing {
    /// The listing of the vault file at `path` (git's temporary copy of one version), or the
    /// one-line note when `keys` cannot open it, the error worded by `reason` (the tool's wording,
    /// remedy included). Never asks for anything: `keys` must not prompt.
    public static func text(
        ofFileAt path: String, keys: FileKeys, reason: (VaultError) -> String
    ) throws(VaultError) -> String {
        guard let file = try FileSystem.read(path, limit: FileStore.maximumFileSize) else {
            throw VaultError(.notFound, "no file at \(path)")
        }
        do throws(VaultError) {
            return text(of: try VaultFileVersion.open(file, keys: keys, label: "this version"))
        } catch {
            return unreadable(reason(error), size: file.count)
        }
    }
}
