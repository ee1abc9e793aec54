public import VaultAge

/// What git shows of a vault file in place of its ciphertext (its textconv): one line per
/// secret, never a value.
///
/// ```
/// # vault file: 2 secrets, encrypted to 2 age public keys (header 3f1c0e9a2b7d); fingerprints are keyed by the file key and all change at a rekey
/// vault/npm-token created=2026-11-21T10:04:48Z updated=2026-11-21T10:04:48Z expires=- fingerprint=8c1e5a0b7f3d29e4
/// ```
/// The fingerprint is an HMAC of the value under a key derived from the file key
/// (``VaultAge/AgeEnvelope/keyedDigest(of:label:)``): it shows whether a value changed between
/// two versions, and nobody without the key can test a guess against it.
public enum VaultFileListing {
    /// The HKDF label of the fingerprint key: vault's own, so it derives nothing age uses.
    static let fingerprintLabel = "vault git fingerprint v1"

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
            let fingerprint = envelope.keyedDigest(of: record.value, label: fingerprintLabel).prefix(8)
                .map { hexByte($0) }.joined()
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
