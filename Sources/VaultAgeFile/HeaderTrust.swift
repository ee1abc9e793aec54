public import VaultAge
package import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The age headers this user last wrote each vault file with, remembered outside the file
/// (`$XDG_STATE_HOME/vault/headers/`), so that a header someone else put there stops writes.
///
/// vault keeps a file's header across writes, so every `set` encrypts to the recipients the
/// header holds. Anyone who may replace the file and knows one recipient's public key could
/// build a file encrypted to that recipient and to themselves: vault would open it and from then
/// on write every new secret to them too. An age header does not name its X25519 recipients (a
/// stanza holds only an ephemeral share), so what is compared is the header itself: its SHA-256
/// digest, with the stanza types kept to say what changed.
///
/// - First use of a file (no record) trusts its header.
/// - A write to a file whose header is not the remembered one fails with `.damaged`; reads are
///   unaffected. `vault trust` accepts the current header; `init` and `rekey` remember the
///   header they write.
public struct HeaderTrust: Sendable {
    /// The folder holding one record per vault file, named after the digest of its path.
    public let directory: String

    /// Records kept in `directory` (created 0700 when the first record is written).
    public init(directory: String) {
        self.directory = directory
    }

    /// A remembered header: its digests (the last one vault wrote, and during a rekey the one
    /// before it, so that a crash between remembering and renaming stops nothing) and the stanza
    /// types of the newest.
    package struct Record: Equatable {
        package var digests: [String]
        package var types: [StanzaType]
        /// The recipients given to `init`, `rekey` or the first `set`, as recipients-file lines
        /// (public keys only), so that a changed header can name the keys it recognises.
        package var recipients: [String] = []
    }

    /// Throws `.damaged` if `header` is not the one remembered for the vault file `path` (symbolic
    /// links resolved); remembers it if nothing is remembered yet.
    func verify(header: [UInt8], types: [StanzaType], path: String) throws(VaultError) {
        guard let record = try record(for: path) else {
            try remember(Record(digests: [Digest.hex(header)], types: types), for: path)
            return
        }
        guard let difference = Self.difference(of: header, types: types, from: record) else { return }
        throw VaultError(
            .damaged,
            "the recipients of \(path) changed since you last wrote it (\(difference)); "
                + "new secrets would go to them too, so writes stop", remedy: .trustHeader)
    }

    /// How `header` differs from the one remembered for the vault file `path`, in words ("now 3
    /// age public keys, you wrote it to 2 age public keys, 1 added", and the keys it shows); nil
    /// when it is the one remembered, or nothing is remembered (a first use trusts the header).
    package func difference(of header: [UInt8], types: [StanzaType], path: String) throws(VaultError) -> String? {
        try record(for: path).flatMap { Self.difference(of: header, types: types, from: $0) }
    }

    private static func difference(of header: [UInt8], types: [StanzaType], from record: Record) -> String? {
        guard !record.digests.contains(Digest.hex(header)) else { return nil }
        return change(from: record.types, to: types) + recognised(in: header, among: record.recipients)
    }

    /// The keys among `recipients` that the header's stanzas show (an SSH stanza carries a 4-byte
    /// tag of its key), and how many stanzas show none of them; empty when the header shows none
    /// of them (an X25519 stanza names nobody).
    package static func recognised(in header: [UInt8], among recipients: [String]) -> String {
        let given = recipients.compactMap { try? Age.parseRecipient($0) }
        guard let stanzas = try? Age.stanzas(of: header) else { return "" }
        let named = given.filter { recipient in stanzas.contains { recipient.recognizes($0) } }
        guard !named.isEmpty else { return "" }
        let others = stanzas.filter { stanza in !named.contains { $0.recognizes(stanza) } }.count
        return "; of the keys you gave it names \(named.map(\.description).joined(separator: ", ")), "
            + "and has \(others) other stanza(s)"
    }

    /// What changed between two headers' stanza types, for the message.
    static func change(from old: [StanzaType], to new: [StanzaType]) -> String {
        guard old != new else { return "a new header, again for \(describe(new))" }
        let added = new.count - old.count
        let count = added > 0 ? ", \(added) added" : added < 0 ? ", \(-added) removed" : ""
        return "now \(describe(new)), you wrote it to \(describe(old))\(count)"
    }

    /// Remembers `header` as the one this user wrote (or accepted) for the vault file `path`,
    /// keeping `previous` trusted too (a rekey in progress).
    ///
    /// `recipients` are those the header was just written for; when nil (a header accepted with
    /// `vault trust`, a rekey's second step), the ones remembered before are kept.
    func remember(
        header: [UInt8], types: [StanzaType], previous: [UInt8]? = nil, path: String,
        recipients: [any AgeRecipient]? = nil
    ) throws(VaultError) {
        let digests = [Digest.hex(header)] + (previous.map { [Digest.hex($0)] } ?? [])
        var lines = recipients?.compactMap(\.recipientLine) ?? []
        if recipients == nil { lines = try record(for: path)?.recipients ?? [] }
        try remember(Record(digests: digests, types: types, recipients: lines), for: path)
    }

    /// What a list of stanza types means to a person: "2 age public keys", "a passphrase".
    public static func describe(_ types: [StanzaType]) -> String {
        StanzaType.describe(types)
    }

    /// The record's name: the digest of the vault file's absolute path, symbolic links resolved,
    /// so that a relative `--file` names the same record from any folder.
    private func recordName(for path: String) -> String {
        Digest.hex(FileSystem.canonicalPath(path))
    }

    package func record(for path: String) throws(VaultError) -> Record? {
        guard let bytes = try FileSystem.read(directory + "/" + recordName(for: path), limit: 1 << 16) else {
            return nil
        }
        // Line 1: the vault file's path (for people); 2: digests; 3: stanza types.
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3 else { return nil }
        let digests = lines[1].split(separator: " ").map(String.init)
        guard !digests.isEmpty, digests.allSatisfy({ $0.utf8.count == 64 }) else { return nil }
        // Lines 4 and on: "recipient " and a public key the header was written for.
        let recipients = lines.dropFirst(3).compactMap { $0.hasPrefix("recipient ") ? String($0.dropFirst(10)) : nil }
        return Record(
            digests: digests, types: lines[2].split(separator: " ").map { StanzaType(String($0)) },
            recipients: recipients)
    }

    private func remember(_ record: Record, for path: String) throws(VaultError) {
        // Root writing a user's vault with the user's HOME (`sudo -E`) checks the user's record
        // but leaves no root-owned file in their home, which would stop their own writes.
        guard FileSystem.ownerOfNearestExisting(directory) == geteuid() else { return }
        try FileSystem.makeDirectories(directory)
        let lines =
            [
                FileSystem.canonicalPath(path), record.digests.joined(separator: " "),
                record.types.map(\.name).joined(separator: " "),
            ] + record.recipients.filter { !$0.contains(where: \.isNewline) }.map { "recipient " + $0 }
        let text = lines.joined(separator: "\n") + "\n"
        try FileSystem.writeAtomically(Array(text.utf8), directory: directory, name: recordName(for: path))
    }
}
