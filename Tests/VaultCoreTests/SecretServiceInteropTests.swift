import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultSecretService
@testable import VaultStorage

/// vault and the other Secret Service clients read each other's secrets: `secret-tool` (libsecret)
/// and Debian's python3-keyring with its SecretService backend (secretstorage), all addressing
/// items by the attributes `service` and `username`.
@Suite("Secret Service interop", .kwalletSessionFlakes)
struct SecretServiceInteropTests {
    @Test("vault reads what secret-tool stored, and secret-tool reads what vault wrote")
    func secretToolBothWays() throws {
        try SessionKeyring.require()
        let secretTool = try requireSecretTool()
        let service = uniqueKeyringService("secret-tool")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)

        let alice = try SecretName(service: service, account: "alice")
        let stored = try runSecretServiceClient(
            secretTool, ["store", "--label=from secret-tool", "service", service, "username", "alice"],
            input: Array("from secret-tool".utf8), timeout: 30)
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
        let record = try #require(try store.read(alice))
        #expect(record.value == Array("from secret-tool".utf8))
        // No vault attributes: the metadata comes from the item's own times, not from 1970.
        #expect(abs(record.metadata.created.secondsSince1970 - Timestamp.now().secondsSince1970) < 3600)
        #expect(record.metadata.expires == nil)
        #expect(try store.list(service: service).map(\.name) == [alice])

        let bob = try SecretName(service: service, account: "bob")
        // KeePassXC and KWallet keep the content type vault gives a binary value
        // (application/octet-stream), and secret-tool lookup prints only text; GNOME Keyring
        // returns every value as text/plain.
        let keepsContentType = ["keepassxc", "kwallet"].contains(
            ProcessInfo.processInfo.environment["VAULT_TEST_PROVIDER"] ?? "")
        for value in [Array("from vault".utf8), [0, 1, 0, 0xFF, 0x80, 0x0A], []] {
            try store.write(SecretRecord(name: bob, value: value, metadata: Self.metadata()))
            let looked = try runSecretServiceClient(
                secretTool, ["lookup", "service", service, "username", "bob"], timeout: 30)
            if keepsContentType && SecretServiceItems.contentType(for: value) != "text/plain" {
                #expect(looked.stderr.contains("does not contain a textual password"), "\(looked.stderr)")
                #expect(try store.read(bob)?.value == value)
                continue
            }
            #expect(looked.status == 0, "secret-tool lookup: \(looked.stderr)")
            #expect(looked.stdout == value, "secret-tool read \(looked.stdout) for \(value): \(looked.stderr)")
        }
    }

    @Test("python3-keyring and vault read each other's secrets")
    func pythonKeyring() throws {
        try SessionKeyring.require()
        try requireKeyringComponent(Python.missing)
        let service = uniqueKeyringService("python")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)

        try Python.set(service, "carol", "from python ✓")
        let carol = try SecretName(service: service, account: "carol")
        #expect(try store.read(carol)?.value == Array("from python ✓".utf8))

        let dave = try SecretName(service: service, account: "dave")
        try store.write(SecretRecord(name: dave, value: Array("from vault ✓".utf8), metadata: Self.metadata()))
        #expect(try Python.get(service, "dave") == "from vault ✓")
        #expect(try store.list(service: service).map(\.name.account) == ["carol", "dave"])
    }

    @Test("writing over another tool's item updates that item in place and keeps its attributes")
    func updatesForeignItemInPlace() throws {
        try SessionKeyring.require()
        try requireKeyringComponent(Python.missing)
        let secretTool = try requireSecretTool()
        let service = uniqueKeyringService("in-place")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)

        try Python.set(service, "erin", "old")
        let erin = try SecretName(service: service, account: "erin")
        var metadata = Self.metadata()
        metadata.expires = Timestamp(secondsSince1970: 1_900_000_000)
        try store.write(SecretRecord(name: erin, value: Array("new".utf8), metadata: metadata))

        let search = try runSecretServiceClient(
            secretTool, ["search", "--all", "service", service, "username", "erin"], timeout: 30)
        let items = search.stdoutText.split(separator: "\n").filter { $0.hasPrefix("[/") }
        #expect(items.count == 1, "expected one item, found:\n\(search.stdoutText)")
        // secret-tool prints the attributes on stderr.
        #expect(search.stderr.contains("attribute.application = Python keyring library"), "\(search.stderr)")
        #expect(search.stderr.contains("attribute.vault.expires = 2030-03-17T17:46:40Z"), "\(search.stderr)")
        #expect(try Python.get(service, "erin") == "new")
        #expect(try store.read(erin)?.metadata == metadata)
    }

    @Test("vault's items have a readable label, the generic schema and RFC 3339 metadata")
    func itemLayout() throws {
        try SessionKeyring.require()
        let secretTool = try requireSecretTool()
        let service = uniqueKeyringService("layout")
        defer { SessionKeyring.clean([service]) }
        let store = try SecretServiceStore(timeout: SessionKeyring.timeout)

        let name = try SecretName(service: service, account: "frank")
        let metadata = SecretMetadata(
            created: Timestamp(secondsSince1970: 1_700_000_000), updated: Timestamp(secondsSince1970: 1_700_000_100),
            expires: Timestamp(secondsSince1970: 1_800_000_000))
        try store.write(SecretRecord(name: name, value: Array("v".utf8), metadata: metadata))
        let search = try runSecretServiceClient(secretTool, ["search", "--all", "service", service], timeout: 30)
        let shown = search.stdoutText + search.stderr  // secret-tool prints the attributes on stderr
        for line in [
            "label = vault: \(service)/frank", "schema = org.freedesktop.Secret.Generic",
            "attribute.vault.created = 2023-11-14T22:13:20Z", "attribute.vault.updated = 2023-11-14T22:15:00Z",
            "attribute.vault.expires = 2027-01-15T08:00:00Z",
        ] {
            #expect(shown.contains(line), "missing '\(line)' in:\n\(shown)")
        }
    }

    static func metadata() -> SecretMetadata {
        SecretMetadata(created: Timestamp(secondsSince1970: 1_700_000_000), updated: .now())
    }

    private func requireSecretTool() throws -> String {
        let path = findExecutable("secret-tool")
        try requireKeyringComponent(path == nil ? "secret-tool is not installed (libsecret-tools)" : nil)
        return path ?? ""
    }
}

/// Debian's python3-keyring, forced onto its SecretService backend.
private enum Python {
    static let executable = "/usr/bin/python3"
    static let environment = ["PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"]
    /// Fails unless the backend in use really is the Secret Service one.
    static let prelude = """
        import sys, keyring
        backend = type(keyring.get_keyring())
        assert backend.__module__ + '.' + backend.__name__ == 'keyring.backends.SecretService.Keyring', backend
        """

    static let missing: String? = {
        guard FileManager.default.isExecutableFile(atPath: executable),
            (try? runTool(executable, ["-c", "import keyring, secretstorage"], timeout: 30))?.status == 0
        else { return "python3-keyring is not installed for \(executable)" }
        return nil
    }()

    static func set(_ service: String, _ username: String, _ password: String) throws {
        let result = try runSecretServiceClient(
            executable,
            ["-c", prelude + "\nkeyring.set_password(sys.argv[1], sys.argv[2], sys.stdin.read())", service, username],
            input: Array(password.utf8), environment: inheritedEnvironment(adding: environment), timeout: 30)
        try #require(result.status == 0, "python keyring set_password: \(result.stderr)")
    }

    static func get(_ service: String, _ username: String) throws -> String? {
        let result = try runSecretServiceClient(
            executable,
            [
                "-c",
                prelude + "\nvalue = keyring.get_password(sys.argv[1], sys.argv[2])\n"
                    + "sys.stdout.write('none' if value is None else 'value:' + value)", service, username,
            ],
            environment: inheritedEnvironment(adding: environment), timeout: 30)
        try #require(result.status == 0, "python keyring get_password: \(result.stderr)")
        return result.stdoutText.hasPrefix("value:") ? String(result.stdoutText.dropFirst("value:".count)) : nil
    }
}
