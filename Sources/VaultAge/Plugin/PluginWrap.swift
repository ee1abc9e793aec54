internal import Crypto
internal import VaultSecureBytes

/// The two state machines, as the file format code calls them.
enum PluginClient {
    /// Wraps `fileKey` to `recipients`, all of plugin `name`, in one `recipient-v1` session.
    static func wrap(
        _ fileKey: SymmetricKey, to recipients: [PluginRecipient], name: String, host: PluginHost
    ) throws(AgeError) -> [Stanza] {
        try PluginSession.run(name, stateMachine: "recipient-v1", host: host) { (session) throws(AgeError) in
            for recipient in recipients {
                try session.send(
                    PluginStanza(recipient.isIdentity ? "add-identity" : "add-recipient", [recipient.encoding]))
            }
            try session.sendGrease()
            try session.send(PluginStanza("wrap-file-key", body: fileKey.withUnsafeBytes { SecureBytes(copying: $0) }))
            try session.send(PluginStanza("done"))
            var stanzas: [Stanza] = []
            while true {
                // One stanza per recipient, then `done` (or an error).
                let command = try session.nextCommand(
                    known: ["recipient-stanza", "error"], expected: recipients.count + 1)
                switch command.command {
                case "recipient-stanza":
                    guard command.metadata.count >= 2, command.arguments[1] == "0" else {
                        throw .plugin("sent a recipient stanza for a file it was not given")
                    }
                    let type = command.arguments[2]
                    guard type != Scrypt.stanzaType else {
                        throw .plugin("sent an scrypt stanza, which must be a file's only stanza")
                    }
                    stanzas.append(
                        Stanza(arguments: Array(command.arguments[2...]), body: command.body.unprotectedArray))
                    try session.send(PluginStanza("ok"))
                case "error":
                    let refusal = try session.refusal(command)
                    throw session.unansweredError ?? refusal
                default:  // done
                    guard !stanzas.isEmpty else {
                        throw session.unansweredError ?? .plugin("ended without wrapping the file key")
                    }
                    guard stanzas.count <= recipients.count else {
                        throw .plugin("sent more stanzas than it was given recipients")
                    }
                    return stanzas
                }
            }
        }
    }

    /// Unwraps the file key from `stanzas` with `identities`, all of plugin `name`, in one
    /// `identity-v1` session; nil when the plugin finds no stanza it can open. `personAnswered`:
    /// whether a person answered one of the plugin's questions on the way.
    static func unwrap(
        _ stanzas: [Stanza], with identities: [PluginIdentity], name: String, host: PluginHost
    ) throws(AgeError) -> (fileKey: SymmetricKey, personAnswered: Bool)? {
        try PluginSession.run(name, stateMachine: "identity-v1", host: host) { (session) throws(AgeError) in
            for identity in identities {
                try session.send(PluginStanza("add-identity", [identity.encoding]))
            }
            try session.sendGrease()
            for stanza in stanzas {
                try session.send(
                    PluginStanza("recipient-stanza", ["0"] + stanza.arguments, body: SecureBytes(stanza.body)))
            }
            try session.send(PluginStanza("done"))
            var fileKey: SymmetricKey?
            var refusal: AgeError?
            while true {
                // A file key, an error for each identity and each stanza, then `done`.
                let command = try session.nextCommand(
                    known: ["file-key", "error"], expected: identities.count + stanzas.count + 2)
                switch command.command {
                case "file-key":
                    guard command.metadata.count == 1, command.arguments[1] == "0" else {
                        throw .plugin("sent a file key for a file it was not given")
                    }
                    guard fileKey == nil else { throw .plugin("sent two file keys for one file") }
                    guard command.body.count == KeyWrap.fileKeySize else {
                        throw .plugin("sent a file key that is not \(KeyWrap.fileKeySize) bytes")
                    }
                    fileKey = command.body.withUnsafeBytes { SymmetricKey(data: $0) }
                    try session.send(PluginStanza("ok"))
                case "error":
                    // The plugin controls the phase and may try another identity: keep listening.
                    let error = try session.refusal(command)
                    refusal = refusal ?? error
                default:  // done
                    if let fileKey { return (fileKey, session.personAnswered) }
                    // A refusal after an unanswered question is most likely its consequence.
                    if let error = session.unansweredError ?? refusal { throw error }
                    return nil
                }
            }
        }
    }
}
