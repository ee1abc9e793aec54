internal import Crypto
internal import VaultSecureBytes

/// One conversation with one plugin program, from start to `done`: the two state machines of
/// C2SP age-plugin.md, `recipient-v1` (wrap) and `identity-v1` (unwrap), as a client.
///
/// The client controls phase 1 (it sends, the plugin listens) and the plugin controls phase 2
/// (it asks, the client answers each command). Unknown commands in phase 2 (grease, or a
/// command of a later protocol version) are answered `unsupported`, as the spec requires.
struct PluginSession {
    let name: String
    let host: PluginHost
    private let channel: any PluginChannel
    private var reader: PluginStanzaReader
    /// The first question answered `fail` because no one could answer: if the plugin then gives
    /// up, the error says a person was needed.
    private(set) var unanswered: String?
    /// Whether a person answered a question (a PIN, a value, a confirmation): then the key that
    /// came out of the conversation needed a person.
    private(set) var personAnswered = false
    /// Phase 2 commands received so far, against the caller's limit.
    private var commands = 0

    /// The phase 2 commands a conversation may hold besides the answers its caller expects:
    /// questions, messages, grease. A plugin that sends more is stopped, so a flood of messages
    /// neither runs nor grows without end.
    static let commandAllowance = 64

    private init(name: String, host: PluginHost, channel: any PluginChannel) {
        self.name = name
        self.host = host
        self.channel = channel
        self.reader = PluginStanzaReader(receive: { () throws(AgeError) in try channel.receive() })
    }

    /// The program's name, as every message names it.
    var program: String { "age-plugin-\(name)" }

    /// Runs `body` in a session with plugin `name` in `stateMachine`; the plugin is always
    /// finished, and every error names the program.
    static func run<T>(
        _ name: String, stateMachine: String, host: PluginHost, _ body: (inout PluginSession) throws(AgeError) -> T
    ) throws(AgeError) -> T {
        let channel = try host.launcher.start(plugin: name, stateMachine: stateMachine)
        var session = PluginSession(name: name, host: host, channel: channel)
        do {
            let result = try body(&session)
            channel.finish(cleanly: true)
            return result
        } catch {
            channel.finish(cleanly: false)
            let prefix = "age-plugin-\(name) "
            throw AgeError(
                kind: error.kind, message: error.message.hasPrefix(prefix) ? error.message : prefix + error.message)
        }
    }

    func send(_ stanza: PluginStanza) throws(AgeError) { try channel.send(stanza.encoded) }

    /// Sends a grease stanza two times in three, as age does, so that a plugin that chokes on an
    /// unknown phase 1 command fails with vault as it would with age.
    func sendGrease() throws(AgeError) {
        var generator = SystemRandomNumberGenerator()
        guard Int.random(in: 0..<3, using: &generator) != 0 else { return }
        var stanza = PluginStanza("grease-\(String(UInt32.random(in: .min ... .max, using: &generator), radix: 16))")
        for _ in 0..<Int.random(in: 0..<3, using: &generator) {
            stanza.arguments.append(String(Int.random(in: 0..<100, using: &generator)))
        }
        if Bool.random(using: &generator) {
            stanza.body = SecureBytes(
                (0..<Int.random(in: 0..<100, using: &generator)).map { _ in UInt8.random(in: 0...255) })
        }
        try send(stanza)
    }

    /// The next phase 2 command the session itself does not answer: questions are answered here
    /// (through the host's prompts), unknown commands get `unsupported`. `expected` is how many
    /// commands the caller may be answered with (stanzas, file keys, errors, `done`); with
    /// ``commandAllowance`` it bounds the conversation.
    mutating func nextCommand(known: Set<String>, expected: Int) throws(AgeError) -> PluginStanza {
        while true {
            let stanza = try reader.next()
            commands += 1
            guard commands <= expected + Self.commandAllowance else {
                throw .plugin("sent more than \(expected + Self.commandAllowance) commands in one conversation")
            }
            if stanza.command == "done" || known.contains(stanza.command) { return stanza }
            switch stanza.command {
            case "msg":
                let shown = host.prompts.show(name, Self.printable(stanza.body))
                if !shown { noteUnanswered("a message") }
                try send(PluginStanza(shown ? "ok" : "fail"))
            case "request-public", "request-secret":
                let secret = stanza.command == "request-secret"
                if let value = host.prompts.ask(name, Self.printable(stanza.body), secret) {
                    noteAnswered()
                    try send(PluginStanza("ok", body: value))
                } else {
                    noteUnanswered(secret ? "a secret (a PIN or passphrase)" : "a value")
                    try send(PluginStanza("fail"))
                }
            case "confirm":
                guard (1...2).contains(stanza.metadata.count),
                    let yes = Base64.decodeUnpadded(stanza.arguments[1]),
                    stanza.arguments.count == 2 || Base64.decodeUnpadded(stanza.arguments[2]) != nil
                else { throw .plugin("sent a malformed confirm command") }
                let no = stanza.arguments.count == 3 ? Base64.decodeUnpadded(stanza.arguments[2]) : nil
                let choice = host.prompts.confirm(
                    name, Self.printable(stanza.body), Self.printable(SecureBytes(yes)),
                    no.map { Self.printable(SecureBytes($0)) })
                switch choice {
                case .some(let yes):
                    noteAnswered()
                    try send(PluginStanza("ok", [yes ? "yes" : "no"]))
                case .none:
                    noteUnanswered("a confirmation")
                    try send(PluginStanza("fail"))
                }
            default:
                try send(PluginStanza("unsupported"))
            }
        }
    }

    private mutating func noteAnswered() {
        personAnswered = true
        channel.personAnswered()
    }

    private mutating func noteUnanswered(_ question: String) {
        if unanswered == nil { unanswered = question }
    }

    /// The error a plugin's `error` command reports, after answering it `ok`.
    func refusal(_ stanza: PluginStanza) throws(AgeError) -> AgeError {
        try send(PluginStanza("ok"))
        let kind = stanza.metadata.first ?? "internal"
        let message = Self.printable(stanza.body)
        return AgeError(kind: .pluginRefused, message: "\(program) reported an error (\(kind)): \(message)")
    }

    /// The error for a plugin that gave up after questions nobody could answer, if there were any.
    var unansweredError: AgeError? {
        guard let first = unanswered else { return nil }
        return AgeError(
            kind: .cannotAsk,
            message: "\(program) asked for \(first) and there is no terminal to answer it (or CI is set)")
    }

    /// `text` as one line of at most 200 printable characters: a plugin's words never add lines
    /// or terminal control sequences to vault's messages, nor format characters (general
    /// category Cf: the bidirectional overrides and isolates such as U+202E, zero-width joiners)
    /// that would make the terminal show something other than what was sent.
    static func printable(_ bytes: SecureBytes) -> String {
        let text = String(decoding: bytes.prefix(800), as: UTF8.self)
        var line = String(text.unicodeScalars.map { isShown($0) ? Character($0) : " " })
        line = line.trimmingCharacters(in: " ")
        return line.count > 200 ? String(line.prefix(200)) + "..." : line
    }

    /// Whether a character of a plugin's text is shown as it is: not a control or format
    /// character, nor a line or paragraph separator.
    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: false
        default: true
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character { slice.removeFirst() }
        while slice.last == character { slice.removeLast() }
        return String(slice)
    }
}
