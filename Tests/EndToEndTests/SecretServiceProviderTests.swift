import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `vault secret-service serve` with unmodified clients: each test starts a private bus with the
/// provider on it (``ServedVault``) and checks what the clients see and what the vault file holds.
@Suite("Secret Service provider")
struct SecretServiceProviderTests {
    /// The accounts of the provider's secrets in the vault file, with their values (records).
    static func providerRecords(_ served: ServedVault) throws -> VaultContents {
        let contents = try served.vault.contents().get()
        return contents.filter { $0.key.hasPrefix("i/") }
    }

    /// The raw file never holds a secret, label or attribute in the clear.
    static func expectNothingInClear(_ served: ServedVault, _ texts: [String]) throws {
        let raw = try Data(contentsOf: URL(fileURLWithPath: served.vault.runner.vaultFile))
        for text in texts {
            #expect(raw.range(of: Data(text.utf8)) == nil, "'\(text)' is in the vault file in the clear")
        }
    }

    @Test("vault's own secret-service backend reads from vault's provider, without loading libsecret")
    func vaultClient() throws {
        let served = try ServedVault()
        let stored = try served.secretTool(
            ["store", "--label=Provider test", "service", "example.org", "username", "alice"],
            stdin: Array("hunter2".utf8))
        #expect(stored.status == 0, "store: \(stored.stderr) \(served.providerLog)")
        var environment = served.clientEnvironment
        environment["LD_DEBUG"] = "files"
        let got = try runTool(
            VaultRunner.binary, ["--backend", "secret-service", "--service", "example.org", "get", "alice"],
            environment: environment, timeout: 30, ownGroup: true)
        #expect(got.status == 0 && got.stdoutText == "hunter2", "\(got.stderr.suffix(600)) \(served.providerLog)")
        #expect(got.stderr.contains("libsystemd.so.0") && !got.stderr.contains("libsecret-1.so.0"))
    }

    @Test("secret-tool stores, looks up, searches, replaces and clears")
    func secretTool() throws {
        let served = try ServedVault()
        let stored = try served.secretTool(
            ["store", "--label=Provider test", "service", "example.org", "user", "alice"], stdin: Array("hunter2".utf8))
        #expect(stored.status == 0, "store: \(stored.stderr) \(served.providerLog)")
        let lookup = try served.secretTool(["lookup", "service", "example.org", "user", "alice"])
        #expect(lookup.status == 0 && lookup.stdoutText == "hunter2", "lookup: \(lookup.stdoutText) \(lookup.stderr)")

        // The same attributes again replace the item (libsecret asks for `replace`).
        let replaced = try served.secretTool(
            ["store", "--label=Provider test", "service", "example.org", "user", "alice"], stdin: Array("second".utf8))
        #expect(replaced.status == 0, "store again: \(replaced.stderr)")
        #expect(try served.secretTool(["lookup", "service", "example.org", "user", "alice"]).stdoutText == "second")
        let search = try served.secretTool(["search", "--all", "service", "example.org"])
        #expect(search.status == 0, "search: \(search.stderr)")
        let found = search.stdoutText + search.stderr
        #expect(found.contains("label = Provider test") && found.contains("secret = second"), "search: \(found)")
        #expect(found.components(separatedBy: "label = ").count == 2, "one item after the replace: \(found)")

        // In the file: one record holding the value, nothing in the clear, and age opens it.
        let records = try Self.providerRecords(served)
        #expect(records.count == 1)
        #expect(records.values.contains { Data($0).range(of: Data("second".utf8)) != nil })
        try Self.expectNothingInClear(served, ["second", "Provider test", "example.org", "alice"])
        let identity = served.vault.runner.path("identity.txt")
        try Data(served.vault.identity.encoded.utf8).write(to: URL(fileURLWithPath: identity))
        if let age = findExecutable("age") {
            let opened = try runTool(age, ["-d", "-i", identity, served.vault.runner.vaultFile])
            #expect(opened.status == 0 && opened.stdoutText.contains("org.freedesktop.secrets"), "\(opened.stderr)")
        } else {
            try requireKeyringComponent("not installed: age")
        }

        let cleared = try served.secretTool(["clear", "service", "example.org", "user", "alice"])
        #expect(cleared.status == 0, "clear: \(cleared.stderr)")
        let gone = try served.secretTool(["lookup", "service", "example.org", "user", "alice"])
        #expect(gone.status != 0 && gone.stdout.isEmpty)
        #expect(try Self.providerRecords(served).isEmpty)
    }

    static let hasSecretStorage: Bool =
        (try? runTool("/usr/bin/python3", ["-c", "import secretstorage, jeepney"], timeout: 30).status) == 0

    @Test("secretstorage (jeepney) with a DH session: store, read, search, replace, delete, binary and 1 MiB values")
    func secretStorage() throws {
        try requireKeyringComponent(
            Self.hasSecretStorage ? nil : "not installed: python3-secretstorage, python3-jeepney")
        let served = try ServedVault()
        let program = """
            import secretstorage, sys
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            assert not collection.is_locked()
            binary = bytes(range(256)) * 4
            item = collection.create_item('binary', {'app': 'provider-test', 'kind': 'binary'}, binary)
            assert collection.session.encrypted, 'the session is not dh-ietf1024-sha256-aes128-cbc-pkcs7'
            assert item.get_secret() == binary
            assert item.get_label() == 'binary'
            assert item.get_attributes() == {'app': 'provider-test', 'kind': 'binary'}
            found = list(collection.search_items({'app': 'provider-test'}))
            assert [f.item_path for f in found] == [item.item_path], found
            again = collection.create_item('binary 2', {'app': 'provider-test', 'kind': 'binary'}, b'\\x00two', replace=True)
            assert again.item_path == item.item_path
            assert item.get_secret() == b'\\x00two' and item.get_label() == 'binary 2'
            item.set_secret(b'three')
            assert item.get_secret() == b'three'
            large = bytes([0xA5]) * (1 << 20)
            big = collection.create_item('large', {'app': 'provider-test', 'kind': 'large'}, large)
            assert big.get_secret() == large
            assert len(list(secretstorage.search_items(connection, {'app': 'provider-test'}))) == 2
            item.delete()
            big.delete()
            assert list(collection.search_items({'app': 'provider-test'})) == []
            print('ok')
            """
        let ran = try served.python(program)
        #expect(ran.status == 0 && ran.stdoutText == "ok\n", "\(ran.stdoutText)\(ran.stderr)\(served.providerLog)")
        #expect(try Self.providerRecords(served).isEmpty)
    }

    @Test("bad calls get the spec's errors, the provider keeps serving and the file is untouched")
    func badCalls() throws {
        try requireKeyringComponent(
            Self.hasSecretStorage ? nil : "not installed: python3-secretstorage, python3-jeepney")
        let served = try ServedVault()
        let stored = try served.secretTool(["store", "--label=kept", "app", "bad-calls"], stdin: Array("kept".utf8))
        try #require(stored.status == 0, "store: \(stored.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: served.vault.runner.vaultFile))

        // Raw calls (jeepney), wrong signatures included, then calls through a real session: a huge
        // attribute map, an attribute over the limit, a secret over 1 MiB.
        let program = """
            import secretstorage
            from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            from jeepney.wrappers import DBusErrorResponse
            S = '/org/freedesktop/secrets'
            SERVICE, ITEM, COLLECTION = 'org.freedesktop.Secret.Service', 'org.freedesktop.Secret.Item', 'org.freedesktop.Secret.Collection'
            INVALID, NO_SESSION = 'org.freedesktop.DBus.Error.InvalidArgs', 'org.freedesktop.Secret.Error.NoSession'
            NO_OBJECT = 'org.freedesktop.Secret.Error.NoSuchObject'
            raw = open_dbus_connection(bus='SESSION')
            def error_of(path, interface, method, signature, body):
                address = DBusAddress(path, bus_name='org.freedesktop.secrets', interface=interface)
                reply = raw.send_and_get_reply(new_method_call(address, method, signature, body), timeout=10)
                if reply.header.message_type == MessageType.error:
                    return reply.header.fields[HeaderFields.error_name]
                return None
            no_secret = (S + '/session/999', b'', b'', 'text/plain')
            cases = [
                (S, SERVICE, 'SearchItems', 's', ('x',), INVALID),
                (S, SERVICE, 'OpenSession', 's', ('plain',), INVALID),
                (S, SERVICE, 'OpenSession', 'sv', ('rot13', ('s', '')), 'org.freedesktop.DBus.Error.NotSupported'),
                (S, SERVICE, 'OpenSession', 'sv', ('dh-ietf1024-sha256-aes128-cbc-pkcs7', ('s', 'x')), INVALID),
                (S, SERVICE, 'OpenSession', 'sv', ('dh-ietf1024-sha256-aes128-cbc-pkcs7', ('ay', bytes([1]))), INVALID),
                (S, SERVICE, 'GetSecrets', 'ao', ([S + '/collection/login/x'],), INVALID),
                (S, SERVICE, 'GetSecrets', 'aoo', ([S + '/collection/login/x'], S + '/session/999'), NO_SESSION),
                (S + '/collection/nosuch', COLLECTION, 'SearchItems', 'a{ss}', ({},), NO_OBJECT),
                (S + '/collection/login/nosuch', ITEM, 'Delete', '', (), NO_OBJECT),
                (S + '/collection/login/nosuch', ITEM, 'GetSecret', 'o', (S + '/session/1',), NO_OBJECT),
                (S + '/collection/login', COLLECTION, 'CreateItem', 'a{sv}(oayays)b', ({}, no_secret, True), NO_SESSION),
                (S + '/collection/login', COLLECTION, 'CreateItem', 'a{sv}(oayays)', ({}, no_secret), INVALID),
                (S + '/session/999', 'org.freedesktop.Secret.Session', 'Close', '', (), None),
            ]
            for path, interface, method, signature, body, expected in cases:
                got = error_of(path, interface, method, signature, body)
                if expected is None:
                    assert got is not None, (method, path, 'accepted')
                else:
                    assert got == expected, (method, signature, got, expected)
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            def refused(call, name):
                try:
                    call()
                except DBusErrorResponse as error:
                    assert error.name == name, error
                    return
                except Exception as error:
                    cause = error.__cause__ or error.__context__
                    assert isinstance(cause, DBusErrorResponse) and cause.name == name, repr(error)
                    return
                raise AssertionError('accepted')
            refused(lambda: collection.create_item('huge', {'k%d' % i: 'v' for i in range(10000)}, b'x'), INVALID)
            refused(lambda: collection.create_item('long', {'k': 'v' * 100000}, b'x'), INVALID)
            refused(lambda: collection.create_item('big', {'k': 'big'}, b'x' * ((1 << 20) + 1)), INVALID)
            print('ok')
            """
        let ran = try served.python(program)
        #expect(ran.status == 0 && ran.stdoutText == "ok\n", "\(ran.stdoutText)\(ran.stderr)")

        // Still serving, and not one byte of the file changed.
        #expect(served.providerIsRunning, "\(served.providerLog)")
        #expect(try served.secretTool(["lookup", "app", "bad-calls"]).stdoutText == "kept")
        #expect(try Data(contentsOf: URL(fileURLWithPath: served.vault.runner.vaultFile)) == before)
    }

    @Test("a locked collection: Locked, a prompt dismissed at once, the handed-over key, Lock")
    func lockedCollection() throws {
        try requireKeyringComponent(
            Self.hasSecretStorage ? nil : "not installed: python3-secretstorage, python3-jeepney")
        // The file exists, encrypted to the vault's identity, which the provider is not given.
        let served = try ServedVault(withKey: false) { vault in
            let made = try vault.runner.run(["set", "seed"], stdin: Array("seed".utf8))
            try #require(made.status == 0, "vault set: \(made.stderr)")
        }
        let locked = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            assert collection.is_locked()
            dismissed = collection.unlock()  # the provider's prompt: dismissed, no person is asked
            assert dismissed, 'the prompt was not dismissed'
            assert collection.is_locked()
            print('ok')
            """
        let ran = try served.python(locked)
        #expect(ran.status == 0 && ran.stdoutText == "ok\n", "\(ran.stdoutText)\(ran.stderr)\(served.providerLog)")
        let refused = try served.secretTool(["store", "--label=x", "app", "locked"], stdin: Array("x".utf8))
        #expect(refused.status != 0, "a store into a locked collection succeeded")

        // The private interface: a wrong key is refused, the file's key unlocks, Lock locks again.
        let file = try Data(contentsOf: URL(fileURLWithPath: served.vault.runner.vaultFile))
        let (_, envelope) = try Age.open(Array(file), identities: [served.vault.identity])
        let key = envelope.fileKeyBytes.withUnsafeBytes { Array($0) }
        func handOver(_ bytes: [UInt8], seconds: Int = 600) throws -> ToolResult {
            try served.gdbus(
                "/org/vault/Provider", "org.vault.Provider1.UnlockWithFileKey",
                ["@ay [" + bytes.map(String.init).joined(separator: ", ") + "]", "@t \(seconds)"])
        }
        let wrong = try handOver(key.map { $0 ^ 1 })
        #expect(wrong.status != 0 && wrong.stderr.contains("org.freedesktop.Secret.Error.IsLocked"), "\(wrong.stderr)")
        let noTime = try handOver(key, seconds: 0)
        #expect(noTime.status != 0 && noTime.stderr.contains("InvalidArgs"), "\(noTime.stderr)")
        let right = try handOver(key)
        #expect(right.status == 0, "\(right.stderr)")
        let stored = try served.secretTool(["store", "--label=x", "app", "unlocked"], stdin: Array("opened".utf8))
        #expect(stored.status == 0, "store after the key was handed over: \(stored.stderr)")
        #expect(try served.secretTool(["lookup", "app", "unlocked"]).stdoutText == "opened")

        let lock = try served.gdbus("/org/vault/Provider", "org.vault.Provider1.Lock")
        #expect(lock.status == 0, "\(lock.stderr)")
        let lockedAgain = try served.gdbus(
            "/org/freedesktop/secrets/collection/login", "org.freedesktop.DBus.Properties.Get",
            ["org.freedesktop.Secret.Collection", "Locked"])
        #expect(lockedAgain.stdoutText.contains("true"), "\(lockedAgain.stdoutText)\(lockedAgain.stderr)")
        let afterLock = try served.secretTool(["lookup", "app", "unlocked"])
        #expect(afterLock.status != 0 && afterLock.stdout.isEmpty)

        // A key handed over for one second is forgotten once it has passed, as the kernel forgets
        // a cached one: the next call finds the collection locked.
        let brief = try handOver(key, seconds: 1)
        #expect(brief.status == 0, "\(brief.stderr)")
        usleep(2_200_000)
        let expired = try served.gdbus(
            "/org/freedesktop/secrets/collection/login", "org.freedesktop.DBus.Properties.Get",
            ["org.freedesktop.Secret.Collection", "Locked"])
        #expect(expired.stdoutText.contains("true"), "\(expired.stdoutText)\(expired.stderr)")
        let afterExpiry = try served.secretTool(["lookup", "app", "unlocked"])
        #expect(afterExpiry.status != 0 && afterExpiry.stdout.isEmpty)
    }

    @Test("kill -9 in the middle of writes: the file opens and every acknowledged item is there")
    func killDuringWrites() throws {
        let served = try ServedVault()
        var acknowledged: [Int] = []
        for index in 0..<12 {
            if index == 8 {
                // Mid-stream: a write may be in flight in the provider as it dies.
                let writer = try spawnChild(
                    findExecutable("secret-tool")!, ["store", "--label=inflight", "app", "kill", "n", "inflight"],
                    environment: served.clientEnvironment, input: .null)
                served.killProvider()
                _ = waitChild(writer, timeout: 30)
                try served.start()
            }
            let stored = try served.secretTool(
                ["store", "--label=n\(index)", "app", "kill", "n", String(index)], stdin: Array("value \(index)".utf8))
            if stored.status == 0 { acknowledged.append(index) }
        }
        #expect(acknowledged.count == 12, "\(served.providerLog)")
        let contents = try served.vault.contents().get()
        #expect(contents.keys.filter { $0.hasPrefix("i/") }.count >= 12)
        for index in acknowledged {
            let lookup = try served.secretTool(["lookup", "app", "kill", "n", String(index)])
            #expect(lookup.stdoutText == "value \(index)", "item \(index): \(lookup.stderr)")
        }
    }

    @Test("two providers and the CLI writing one file at once: no write is lost")
    func sharedFile() throws {
        let first = try ServedVault()
        let second = try ServedVault(sharing: first)
        defer { withExtendedLifetime(second) {} }
        let secretTool = try #require(findExecutable("secret-tool"))
        var children: [(pid: Int32, what: String)] = []
        for index in 0..<6 {
            for (name, served) in [("first", first), ("second", second)] {
                let input = first.vault.runner.path("\(name)-\(index).in")
                try Data("\(name) \(index)".utf8).write(to: URL(fileURLWithPath: input))
                let pid = try spawnChild(
                    secretTool, ["store", "--label=shared", "app", "shared", "n", "\(name)-\(index)"],
                    environment: served.clientEnvironment, input: .file(input))
                children.append((pid, "\(name) \(index)"))
            }
            let input = first.vault.runner.path("cli-\(index).in")
            try Data("cli \(index)".utf8).write(to: URL(fileURLWithPath: input))
            var environment = first.vault.runner.environment
            environment["VAULT_IDENTITY"] = first.vault.identity.encoded
            let pid = try spawnChild(
                VaultRunner.binary, ["set", "cli-\(index)"], environment: environment, input: .file(input))
            children.append((pid, "cli \(index)"))
        }
        for child in children {
            #expect(waitChild(child.pid, timeout: 60) == 0, "\(child.what) failed")
        }
        for index in 0..<6 {
            for name in ["first", "second"] {
                for served in [first, second] {
                    let lookup = try served.secretTool(["lookup", "app", "shared", "n", "\(name)-\(index)"])
                    #expect(lookup.stdoutText == "\(name) \(index)", "\(name) \(index): \(lookup.stderr)")
                }
            }
        }
        let contents = try first.vault.contents().get()
        #expect(contents.keys.filter { $0.hasPrefix("i/login/") }.count == 12)
        #expect((0..<6).allSatisfy { contents["cli-\($0)"] == Array("cli \($0)".utf8) })
    }

    @Test("the provider exits when its bus goes away")
    func exitsWithTheBus() throws {
        let served = try ServedVault()
        served.bus.stop()
        let status = served.waitForExit(timeout: 20)
        #expect(status == 0, "the provider did not exit cleanly after the bus went away: \(String(describing: status))")
    }

    @Test("a second provider on a bus that has one is refused, exit 7, and the first keeps serving")
    func secondProvider() throws {
        let served = try ServedVault()
        var environment = served.vault.runner.environment.merging(served.bus.environment) { $1 }
        environment["VAULT_IDENTITY"] = served.vault.identity.encoded
        let second = try runTool(
            VaultRunner.binary, ["secret-service", "serve"], environment: environment, timeout: 30)
        second.expectFailure(7, "already provides org.freedesktop.secrets")
        #expect(served.providerIsRunning)
    }

    @Test("a caller of another uid is refused, even on a bus that lets every user in")
    func otherUserRefused() throws {
        try requireKeyringComponent(ServedVault.missingTools())
        let setpriv = findExecutable("setpriv")
        try requireComponent(setpriv == nil ? "not installed: setpriv (util-linux)" : nil)
        try requireComponent(getuid() == 0 ? nil : "needs root to call as another user", required: false)
        // A bus of its own whose policy admits any uid (the tests' private bus, like a session
        // bus, admits only its owner's), in a folder others may enter.
        let directory = try makeTemporaryDirectory(prefix: "vault-open-bus")
        defer { removeTemporaryDirectory(directory) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let configuration = directory.appendingPathComponent("bus.conf")
        let root = try #require(packageRoot(), "no Package.swift above the tests")
        let privateBus = try String(
            contentsOf: root.appendingPathComponent("Tests/private-bus.conf"), encoding: .utf8)
        try #require(privateBus.contains("<allow own=\"*\"/>"))
        try privateBus.replacingOccurrences(of: "<allow own=\"*\"/>", with: "<allow own=\"*\"/><allow user=\"*\"/>")
            .write(to: configuration, atomically: true, encoding: .utf8)
        let socket = directory.appendingPathComponent("bus").path
        let bus = try spawnChild(
            try #require(findExecutable("dbus-daemon")),
            ["--config-file=\(configuration.path)", "--address=unix:path=\(socket)", "--nofork"], environment: nil,
            input: .null, ownGroup: true)
        defer { stopChild(bus) }
        let vault = try IdentityVault()
        defer { vault.cleanUp() }
        var environment = vault.runner.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        let gdbus = try #require(findExecutable("gdbus"))
        // The socket appears when the bus listens (the private bus's own wait is a shell loop too).
        for _ in 0..<2000 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: socket), "the open bus did not start")
        let provider = try spawnChild(
            VaultRunner.binary, ["secret-service", "serve"], environment: environment, input: .null, ownGroup: true)
        defer { stopChild(provider) }
        let waited = try runTool(
            gdbus, ["wait", "--session", "--timeout", "20", "org.freedesktop.secrets"], environment: environment,
            timeout: 30)
        try #require(waited.status == 0, "the provider did not start: \(waited.stderr)")

        let call = [
            "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
            "--method", "org.freedesktop.Secret.Service.SearchItems", "{}",
        ]
        let own = try runTool(gdbus, call, environment: environment, timeout: 30)
        #expect(own.status == 0, "the provider's own user: \(own.stderr)")
        let other = try runTool(
            setpriv!, ["--reuid=65534", "--regid=65534", "--clear-groups", gdbus] + call, environment: environment,
            timeout: 30)
        #expect(
            other.status != 0 && other.stderr.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(other.stderr)")
    }

    @Test("a provider over the Secret Service itself is refused, exit 2")
    func refusesSecretServiceBackend() throws {
        let runner = try VaultRunner()
        defer { runner.cleanUp() }
        try runner.run(["--backend", "secret-service", "secret-service", "serve"])
            .expectFailure(2, "talking to itself")
        try runner.run(["secret-service", "nonsense"]).expectFailure(2, "unknown 'vault secret-service' action")
    }
}
