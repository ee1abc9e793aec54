import VaultSecureBytes
import VaultStorage
import VaultSystem

/// What this machine approved for one living token: where its refreshes go, or which command
/// mints it. One small file per store and token under `$XDG_STATE_HOME/vault/refresh-approvals`.
///
/// The file is named by the SHA-256 of the store and the token's name, and holds digests of
/// everything but the origin (kept for messages), so that no secret's name and no command reaches
/// the file system. It is read only when it is the user's own, a regular file that group and others
/// can neither read nor write (``FileSystem/readOwnPrivate(_:limit:)``): anything else is ignored,
/// so the refresh stays unapproved.
struct RefreshApprovalRecord: Equatable {
    enum Target: Equatable {
        /// An OAuth refresh: the token endpoint's origin, digests of its whole URL and of the
        /// client ID, and a digest of the client secret's name (nil for a public client).
        case oauth(origin: String, url: String, clientID: String, clientSecretName: String?)
        /// A refresh command: the digest of its text.
        case command(String)
    }

    var target: Target

    /// The record the companion of `name` calls for; nil when its token URL is not plain
    /// (``TokenURL``), which nothing can approve.
    init?(_ companion: TokenCompanion) {
        switch companion.source {
        case .oauth(let client):
            guard let url = TokenURL(client.tokenURL) else { return nil }
            target = .oauth(
                origin: url.origin, url: Self.digest(client.tokenURL), clientID: Self.digest(client.clientID),
                clientSecretName: client.clientSecretName.map(Self.digest))
        case .command(let command):
            target = .command(Self.digest(command))
        }
    }

    private init(target: Target) { self.target = target }

    static func digest(_ text: String) -> String { Digest.hex(text) }

    /// The file of `name` in `store`: the digest of both, so that one store's approval never
    /// approves another's token of the same name.
    static func fileName(_ name: SecretName, storeKey: String) -> String {
        digest("\(storeKey)\u{0}\(name.service)\u{0}\(name.account)")
    }

    /// The first line of every record: its format.
    private static let format = "vault refresh approval 1"

    var encoded: [UInt8] {
        var lines = [Self.format]
        switch target {
        case .oauth(let origin, let url, let clientID, let secretName):
            lines += ["oauth", origin, url, clientID, secretName ?? "-"]
        case .command(let digest):
            lines += ["command", digest]
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Reads a record back; nil for anything that is not one.
    init?(decoding bytes: some Collection<UInt8>) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.first == Self.format else { return nil }
        func isDigest(_ text: String) -> Bool { text.utf8.count == 64 }
        switch Array(lines.dropFirst()) {
        case let fields where fields.count == 5 && fields[0] == "oauth":
            guard TokenURL(origin: fields[1])?.origin == fields[1], isDigest(fields[2]), isDigest(fields[3]),
                fields[4] == "-" || isDigest(fields[4])
            else { return nil }
            self.init(
                target: .oauth(
                    origin: fields[1], url: fields[2], clientID: fields[3],
                    clientSecretName: fields[4] == "-" ? nil : fields[4]))
        case let fields where fields.count == 2 && fields[0] == "command" && isDigest(fields[1]):
            self.init(target: .command(fields[1]))
        default:
            return nil
        }
    }

    /// What differs between an approved record and the current one, for a message; names no
    /// secret (origins only).
    static func change(from approved: Self, to current: Self) -> String {
        switch (approved.target, current.target) {
        case (
            .oauth(let old, let oldURL, let oldClient, let oldSecret),
            .oauth(let new, let newURL, let newClient, let newSecret)
        ):
            if old != new { return "its token endpoint is now at \(new), approved was \(old)" }
            if oldURL != newURL { return "its token URL at \(new) changed" }
            if oldSecret != newSecret {
                return newSecret == nil
                    ? "it no longer sends a client secret" : "it now sends a different client secret"
            }
            if oldClient != newClient { return "its client ID changed" }
            return "it changed"
        case (.command, .command): return "its refresh command changed"
        case (.command, .oauth(let origin, _, _, _)):
            return "it was a refresh command, and now sends tokens to \(origin)"
        case (.oauth(let origin, _, _, _), .command): return "it was refreshed at \(origin), and now runs a command"
        }
    }

    /// The record in `directory`, if there is one vault can trust.
    static func read(directory: String, fileName: String) -> Self? {
        guard let bytes = FileSystem.readOwnPrivate(directory + "/" + fileName, limit: 4096) else { return nil }
        return Self(decoding: bytes)
    }

    /// Writes the record (0600, in a 0700 folder, atomically).
    func write(directory: String, fileName: String) throws(VaultError) {
        try FileSystem.writePrivate(encoded, to: directory + "/" + fileName)
    }
}
