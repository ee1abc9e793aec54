import Foundation
import Testing
import VaultTestSupport

/// Unmodified clients of the Secret Service against vault's provider (`vault secret-service
/// serve`) on a private bus: each stores, reads and deletes through it, and what it stored is in
/// the vault file, encrypted.
@Suite("secret-service serve: real clients")
struct SecretServiceClientInteropTests {
    /// The provider's items in the vault file (its secrets of the service org.freedesktop.secrets
    /// named `i/COLLECTION/ID`; `c/COLLECTION` are collections).
    static func providerItems(_ served: ServedVault) throws -> Int {
        try VaultFile.read(served.vault.runner.vaultFile, identity: served.vault.identity).keys
            .filter { $0.hasPrefix("org.freedesktop.secrets\ti/") }.count
    }

    @Test("python3-keyring (its SecretService backend): set, get, delete")
    func pythonKeyring() throws {
        try requireComponent(
            (try? runTool("/usr/bin/python3", ["-c", "import keyring.backends.SecretService"]))?.status == 0
                ? nil : "not installed: python3-keyring")
        let served = try ServedVault()
        let program = """
            import sys, keyring
            from keyring.backends import SecretService
            keyring.set_keyring(SecretService.Keyring())
            action, service, user = sys.argv[1:4]
            if action == "set": keyring.set_password(service, user, sys.stdin.read())
            elif action == "get": print(repr(keyring.get_password(service, user)))
            else: keyring.delete_password(service, user)
            """
        let set = try served.run(
            "/usr/bin/python3", ["-c", program, "set", "pypi", "ann"], stdin: Array("tøken with spaces".utf8))
        #expect(set.status == 0, "\(set.stderr) \(served.providerLog)")
        #expect(try Self.providerItems(served) == 1)
        #expect(try served.python(program, ["get", "pypi", "ann"]).stdoutText == "'tøken with spaces'\n")
        #expect(try served.python(program, ["delete", "pypi", "ann"]).status == 0)
        #expect(try served.python(program, ["get", "pypi", "ann"]).stdoutText == "None\n")
        #expect(try Self.providerItems(served) == 0)
    }

    @Test("git's contrib git-credential-libsecret: store, get, erase")
    func gitCredentialLibsecret() throws {
        let helper = try GitLibsecretInteropTests().libsecret()
        let served = try ServedVault()
        let credential = "protocol=https\nhost=git.example.com\nusername=ann\n"
        let stored = try served.run(helper, ["store"], stdin: Array((credential + "password=hunter2\n").utf8))
        #expect(stored.status == 0, "\(stored.stderr) \(served.providerLog)")
        #expect(try Self.providerItems(served) == 1)
        let got = try served.run(helper, ["get"], stdin: Array(credential.utf8))
        #expect(got.stdoutText.contains("password=hunter2\n"), "\(got.stdoutText) \(got.stderr)")
        #expect(try served.run(helper, ["erase"], stdin: Array(credential.utf8)).status == 0)
        // The helper writes the credential back after every action: no password once erased.
        #expect(!(try served.run(helper, ["get"], stdin: Array(credential.utf8)).stdoutText.contains("password=")))
        #expect(try Self.providerItems(served) == 0)
    }

    @Test("Debian's docker-credential-secretservice: store, get, list, erase")
    func dockerCredentialSecretService() throws {
        guard let helper = findExecutable("docker-credential-secretservice") else {
            try requireComponent("not installed: docker-credential-secretservice (golang-docker-credential-helpers)")
            return
        }
        let served = try ServedVault()
        let server = "https://registry.example.com"
        let stored = try served.run(
            helper, ["store"], stdin: Array(#"{"ServerURL":"\#(server)","Username":"ann","Secret":"p4ss"}"#.utf8))
        #expect(stored.status == 0, "\(stored.stdoutText) \(stored.stderr) \(served.providerLog)")
        let got = try served.run(helper, ["get"], stdin: Array(server.utf8))
        let answer = try JSONSerialization.jsonObject(with: Data(got.stdout)) as? [String: String]
        #expect(answer?["Username"] == "ann" && answer?["Secret"] == "p4ss", "\(got.stdoutText) \(got.stderr)")
        let listed = try served.run(helper, ["list"])
        #expect(listed.stdoutText.contains(#""\#(server)":"ann""#), "\(listed.stdoutText) \(listed.stderr)")
        #expect(try served.run(helper, ["erase"], stdin: Array(server.utf8)).status == 0)
        let gone = try served.run(helper, ["get"], stdin: Array(server.utf8))
        #expect(gone.status != 0 && gone.stdoutText.contains("credentials not found"), "\(gone.stdoutText)")
        #expect(try Self.providerItems(served) == 0)
    }

    @Test("vault's own --backend secret-service: set, get, ls, rm")
    func vaultClient() throws {
        let served = try ServedVault()
        let client = { (arguments: [String], stdin: String) throws -> ToolResult in
            try served.run(VaultRunner.binary, ["--backend", "secret-service"] + arguments, stdin: Array(stdin.utf8))
        }
        let set = try client(["set", "deploy-key"], "v4lue\n\u{0}binary")
        #expect(set.status == 0, "\(set.stderr) \(served.providerLog)")
        #expect(try client(["get", "deploy-key"], "").stdout == Array("v4lue\n\u{0}binary".utf8))
        #expect(try client(["ls"], "").stdoutText == "deploy-key\n")
        #expect(try client(["rm", "deploy-key"], "").status == 0)
        #expect(try client(["get", "deploy-key"], "").status == 1)
        #expect(try Self.providerItems(served) == 0)
    }
}
