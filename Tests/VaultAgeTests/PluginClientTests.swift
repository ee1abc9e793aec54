import Synchronization
import Testing
import VaultAge
import VaultSecureBytes

/// The plugin client's two state machines against an in-memory plugin (the process seam), so
/// the conversation itself is checked: what vault sends, and how it answers each command.
@Suite("age plugin client, in memory")
struct PluginClientTests {
    /// A plugin whose output is fixed in advance; it records everything the client sends.
    final class ScriptedPlugin: PluginChannel, @unchecked Sendable {
        // Used by one test on one thread: the client calls send and receive in turn.
        var output: [SecureBytes]
        var sent = SecureBytes()
        var finished: Bool?
        /// How many times the launcher started it.
        var starts = 0
        /// How many times the client said a person answered a question.
        var answers = 0

        init(_ output: [String]) { self.output = output.map { SecureBytes($0.utf8) } }

        func send(_ bytes: SecureBytes) throws(AgeError) { sent.append(contentsOf: bytes) }
        func receive() throws(AgeError) -> SecureBytes { output.isEmpty ? SecureBytes() : output.removeFirst() }
        func finish(cleanly: Bool) { finished = cleanly }
        func personAnswered() { answers += 1 }

        /// The commands the client sent, grease left out.
        func commands() throws -> [PluginStanza] {
            var reader: PluginStanzaReader
            var all: [PluginStanza] = []
            var given = false
            reader = PluginStanzaReader(receive: { [sent] () throws(AgeError) in
                defer { given = true }
                return given ? SecureBytes() : sent
            })
            // Read until the recorded bytes end (the reader then throws).
            while let stanza = try? reader.next() {
                if !stanza.command.hasPrefix("grease-") { all.append(stanza) }
            }
            return all
        }
    }

    struct Launcher: PluginLauncher, @unchecked Sendable {
        // Immutable after creation; the plugin object is used by one test only.
        let plugin: ScriptedPlugin
        func start(plugin name: String, stateMachine: String) throws(AgeError) -> any PluginChannel {
            guard name == "fake" else { throw AgeError(kind: .plugin, message: "age-plugin-\(name) was not found") }
            plugin.starts += 1
            return plugin
        }
    }

    static let identity = "AGE-PLUGIN-FAKE-1QYPQXPQ9QCRSSZG2PVXQ6RS0ZQG3YYC5Z5TPWXQERGD3C8G7RUSQ2GRRYY"
    static let identity2 = "AGE-PLUGIN-FAKE-19Q5J52EV95HZ7VP3XGENGDFKXUK3MCJW"
    static let recipient = "age1fake1zs23v9ccrydpk8qarc0jqgfzyv92jm3c"

    @Test("identity-v1: phase 1, then unsupported to an unknown command, ok with the PIN, ok to the file key")
    func unwrap() throws {
        let x25519 = X25519Identity.generate()
        let file = try Age.encrypt(Array("payload".utf8), to: [x25519.recipient])
        let plugin = ScriptedPlugin([
            "-> frobnicate-v2 1\n\n", "-> request-secret\nUElO\n", "-> done\n\n",
        ])
        let prompts = PluginPrompts(
            show: { _, _ in true },
            ask: { name, message, secret in
                name == "fake" && message == "PIN" && secret ? SecureBytes("1234".utf8) : nil
            }, confirm: { _, _, _, _ in nil })
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: prompts)
        // The plugin answers `done` without a file key: no identity opened the file.
        expectAgeError([.noMatch]) {
            _ = try Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
        }
        let commands = try plugin.commands()
        #expect(commands.map(\.command) == ["add-identity", "recipient-stanza", "done", "unsupported", "ok"])
        #expect(commands.first?.arguments == ["add-identity", Self.identity])
        #expect(commands[1].arguments.prefix(3) == ["recipient-stanza", "0", "X25519"])
        #expect(commands.last?.body == SecureBytes("1234".utf8))
        #expect(plugin.finished == true)
    }

    @Test("without anyone to ask, a question is answered fail and the result is cannotAsk")
    func nobody() throws {
        let file = try Age.encrypt([1], to: [X25519Identity.generate().recipient])
        let plugin = ScriptedPlugin(["-> request-secret\nUElO\n-> done\n\n"])
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: .nobody)
        do throws(AgeError) {
            _ = try Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
            Issue.record("decrypted without a file key")
        } catch {
            #expect(error.kind == .cannotAsk)
            #expect(error.message.hasPrefix("age-plugin-fake asked for a secret"))
        }
        #expect(try plugin.commands().map(\.command).suffix(1) == ["fail"])
    }

    @Test("garbage, a missing done and a second file key are the plugin's failure")
    func brokenPlugins() throws {
        let file = try Age.encrypt([1], to: [X25519Identity.generate().recipient])
        let key = "-> file-key 0\nAAAAAAAAAAAAAAAAAAAAAA\n"
        for (output, fragment) in [
            ("hello\n", "answered a line that is not a stanza"),
            ("-> msg\naGk\n", "closed its output in the middle of the conversation"),
            (key + key, "sent two file keys for one file"),
            ("-> file-key 1\nAAAAAAAAAAAAAAAAAAAAAA\n", "sent a file key for a file it was not given"),
        ] {
            let plugin = ScriptedPlugin([output])
            let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: .nobody)
            do throws(AgeError) {
                _ = try Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
                Issue.record("decrypted with \(output)")
            } catch {
                #expect(error.kind == .plugin, "\(error)")
                #expect(error.message == "age-plugin-fake \(fragment)")
            }
            #expect(plugin.finished == false, "a broken plugin is stopped at once")
        }
    }

    @Test("recipient-v1: the keys of one plugin go to one start, an X25519 key beside them is wrapped as usual")
    func wrapsOneSessionPerPlugin() throws {
        let x25519 = X25519Identity.generate()
        let plugin = ScriptedPlugin([
            "-> recipient-stanza 0 fake a\n\n", "-> recipient-stanza 0 fake b\n\n", "-> done\n\n",
        ])
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: .nobody)
        let recipients: [any AgeRecipient] = [
            try PluginRecipient(Self.recipient, host: host), x25519.recipient,
            try PluginIdentity(Self.identity2, host: host).matchingRecipient(),
        ]
        let file = try Age.encrypt(Array("payload".utf8), to: recipients)
        #expect(plugin.starts == 1)
        let commands = try plugin.commands()
        #expect(commands.map(\.command) == ["add-recipient", "add-identity", "wrap-file-key", "done", "ok", "ok"])
        #expect(commands[0].arguments == ["add-recipient", Self.recipient])
        #expect(commands[1].arguments == ["add-identity", Self.identity2])
        // The group takes the place of its first key.
        #expect(try Age.stanzaTypes(of: file).map(\.name) == ["fake", "fake", "X25519"])
        #expect(try Age.decrypt(file, identities: [x25519]) == SecureBytes("payload".utf8))
    }

    @Test("identity-v1: the identities of one plugin are tried in one start, then the other kinds")
    func unwrapsOneSessionPerPlugin() throws {
        let x25519 = X25519Identity.generate()
        let file = try Age.encrypt(Array("payload".utf8), to: [x25519.recipient])
        let plugin = ScriptedPlugin(["-> done\n\n"])
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: .nobody)
        let identities: [any AgeIdentity] = [
            try PluginIdentity(Self.identity, host: host), x25519, try PluginIdentity(Self.identity2, host: host),
        ]
        #expect(try Age.decrypt(file, identities: identities) == SecureBytes("payload".utf8))
        #expect(plugin.starts == 1)
        let commands = try plugin.commands()
        #expect(commands.map(\.command) == ["add-identity", "add-identity", "recipient-stanza", "done"])
        #expect(commands.prefix(2).map { $0.arguments[1] } == [Self.identity, Self.identity2])
    }

    /// A file for an X25519 key, and the plugin command that hands over its file key.
    static func fileWithKeyCommand() throws -> (file: [UInt8], command: String) {
        let (file, envelope) = try Age.encryptReturningEnvelope([7], to: [X25519Identity.generate().recipient])
        let key = Base64.encodeUnpadded(envelope.fileKeyBytes.unprotectedArray)
        return (file, "-> file-key 0\n\(key)\n")
    }

    @Test("a plugin key needs a person only when a person answered a question on the way")
    func needsPersonOnlyWhenAnswered() throws {
        let (file, fileKey) = try Self.fileWithKeyCommand()
        let pin = PluginPrompts(
            show: { _, _ in true }, ask: { _, _, _ in SecureBytes("1234".utf8) }, confirm: { _, _, _, _ in true })
        let cases: [(output: String, prompts: PluginPrompts, needsPerson: Bool)] = [
            (fileKey + "-> done\n\n", pin, false),
            ("-> msg\naGk\n" + fileKey + "-> done\n\n", pin, false),
            ("-> request-secret\nUElO\n" + fileKey + "-> done\n\n", .nobody, false),
            ("-> request-secret\nUElO\n" + fileKey + "-> done\n\n", pin, true),
            ("-> confirm eWVz\nVXNlIGl0Pw\n" + fileKey + "-> done\n\n", pin, true),
        ]
        for (output, prompts, needsPerson) in cases {
            let plugin = ScriptedPlugin([output])
            let identity = try PluginIdentity(
                Self.identity, host: PluginHost(launcher: Launcher(plugin: plugin), prompts: prompts))
            #expect(try Age.decrypt(file, identities: [identity]) == SecureBytes([7]), "\(output)")
            #expect(identity.needsPerson == needsPerson, "\(output)")
            // Each answer gives the conversation a person's time, and nothing else does.
            #expect(plugin.answers == (needsPerson ? 1 : 0), "\(output)")
        }
    }

    @Test("a file key from a plugin that does not open the header: the plugin's key, not a damaged file")
    func wrongFileKeyFromPlugin() throws {
        let (file, _) = try Self.fileWithKeyCommand()
        let plugin = ScriptedPlugin(["-> file-key 0\nAAAAAAAAAAAAAAAAAAAAAA\n-> done\n\n"])
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: .nobody)
        do throws(AgeError) {
            _ = try Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
            Issue.record("decrypted with a wrong file key")
        } catch {
            #expect(error.kind == .pluginKeyMismatch, "\(error)")
            #expect(error.message.contains("age-plugin-fake answered does not open the file"), "\(error)")
        }
    }

    /// A plugin that sends `msg` commands, `count` of them, then `done`; it counts the answers.
    final class ChattyPlugin: PluginChannel, @unchecked Sendable {
        // Used by one test on one thread, as ScriptedPlugin.
        var left: Int
        var answered = 0
        init(count: Int) { left = count }
        func send(_ bytes: SecureBytes) throws(AgeError) {
            if bytes.starts(with: Array("-> fail".utf8)) { answered += 1 }
        }
        func receive() throws(AgeError) -> SecureBytes {
            left -= 1
            return SecureBytes((left >= 0 ? "-> msg\naGk\n" : left == -1 ? "-> done\n\n" : "").utf8)
        }
        func finish(cleanly: Bool) {}
        func personAnswered() {}
    }

    struct ChattyLauncher: PluginLauncher, @unchecked Sendable {
        // Immutable after creation; the plugin object is used by one test only.
        let plugin: ChattyPlugin
        func start(plugin name: String, stateMachine: String) throws(AgeError) -> any PluginChannel { plugin }
    }

    @Test("a flood of messages is cut off after a bounded number of commands, wrapping and unwrapping")
    func commandFloodIsBounded() throws {
        let file = try Age.encrypt([1], to: [X25519Identity.generate().recipient])
        for wrapping in [false, true] {
            let plugin = ChattyPlugin(count: 100_000)
            let host = PluginHost(launcher: ChattyLauncher(plugin: plugin), prompts: .nobody)
            do throws(AgeError) {
                if wrapping {
                    _ = try Age.encrypt([1], to: [try PluginRecipient(Self.recipient, host: host)])
                } else {
                    _ = try Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
                }
                Issue.record("a conversation of 100,000 messages ended normally")
            } catch {
                #expect(error.kind == .plugin, "\(error)")
                #expect(error.message.contains("commands in one conversation"), "\(error)")
            }
            #expect(plugin.answered < 100, "answered \(plugin.answered) messages")
        }
    }

    @Test("a plugin's text loses control and format characters: no bidirectional overrides, no new lines")
    func formatCharactersAreStripped() throws {
        let file = try Age.encrypt([1], to: [X25519Identity.generate().recipient])
        let text = "pay\u{202E}lertna\u{202C} \u{2066}x\u{2069}\u{200B}y\u{061C}z\u{2028}next\u{1B}[2J"
        let body = Base64.encodeUnpadded(Array(text.utf8))
        let shown = Mutex<[String]>([])
        let prompts = PluginPrompts(
            show: { _, message in
                shown.withLock { $0.append(message) }
                return true
            }, ask: { _, _, _ in nil }, confirm: { _, _, _, _ in nil })
        let plugin = ScriptedPlugin(["-> msg\n\(body)\n-> done\n\n"])
        let host = PluginHost(launcher: Launcher(plugin: plugin), prompts: prompts)
        _ = try? Age.decrypt(file, identities: [try PluginIdentity(Self.identity, host: host)])
        #expect(shown.withLock { $0 } == ["pay lertna   x  y z next [2J"])
    }
}
