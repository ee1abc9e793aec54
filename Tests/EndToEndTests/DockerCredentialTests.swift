import Foundation
import Testing
import VaultTestSupport

/// Debian's docker-registry on 127.0.0.1 with htpasswd auth, started once per test process.
enum LoopbackRegistry {
    static let user = "alice"
    static let password = "registry pass"
    static let shared: Result<String, any Error> = Result { try start() }

    /// Starts the registry; returns its `127.0.0.1:PORT`.
    private static func start() throws -> String {
        try requireComponent(
            findExecutable("docker-registry") == nil ? "docker-registry is not installed" : nil)
        try requireComponent(findExecutable("htpasswd") == nil ? "htpasswd (apache2-utils) is not installed" : nil)
        let root = try makeTemporaryDirectory()
        let htpasswd = try runTool(findExecutable("htpasswd")!, ["-Bbn", user, password])
        guard htpasswd.status == 0 else { throw FixtureFailure(description: "htpasswd: \(htpasswd.stderr)") }
        try Data(htpasswd.stdout).write(to: root.appendingPathComponent("htpasswd"))
        let port = try freeLoopbackPort()
        let config = """
            version: 0.1
            log:
              level: error
            storage:
              filesystem:
                rootdirectory: \(root.path)/data
            http:
              addr: 127.0.0.1:\(port)
            auth:
              htpasswd:
                realm: vault-test
                path: \(root.path)/htpasswd
            """
        try Data(config.utf8).write(to: root.appendingPathComponent("config.yml"))
        let pid = try spawnChild(
            findExecutable("docker-registry")!, ["serve", root.appendingPathComponent("config.yml").path],
            environment: ["PATH": "/usr/bin:/bin"], input: .null)
        BackgroundProcesses.register(pid)
        guard waitForLoopbackPort(port, timeout: 20) else {
            throw FixtureFailure(description: "docker-registry did not listen on 127.0.0.1:\(port)")
        }
        return "127.0.0.1:\(port)"
    }
}

/// `docker-credential-vault`: the docker-credential-helpers protocol, directly and through skopeo
/// (containers/image reads `credHelpers` from REGISTRY_AUTH_FILE; the Docker CLI would need a
/// daemon for `login`).
@Suite("docker credential helper, end to end")
struct DockerCredentialTests {
    @Test("store, get, list, erase, version; the server URL with or without a scheme")
    func protocolOperations() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let helper = "docker-credential-vault"
        let missing = try vault.helper(helper, ["get"], stdin: "registry.example.com\n")
        #expect(missing.status != 0)
        #expect(missing.stdoutText == "credentials not found in native keychain\n")
        try vault.helper(
            helper, ["store"],
            stdin: #"{"ServerURL":"https://registry.example.com","Username":"bob","Secret":"t\"ok\\en"}"#
        ).expectSuccess()
        #expect(try vault.run(["ls", "--service", "docker"]).stdoutText == "docker://bob@registry.example.com\n")
        for url in ["registry.example.com", "https://registry.example.com/", "http://registry.example.com"] {
            let get = try vault.helper(helper, ["get"], stdin: url)
            get.expectSuccess()
            #expect(get.stdoutText == #"{"ServerURL":"\#(url)","Username":"bob","Secret":"t\"ok\\en"}"# + "\n")
        }
        #expect(
            try vault.run(["get", "--service", "docker", "docker://bob@registry.example.com"]).stdoutText == #"t"ok\en"#
        )
        // A later login as another user replaces the first.
        try vault.helper(
            helper, ["store"], stdin: #"{"ServerURL":"registry.example.com","Username":"carl","Secret":"x"}"#
        ).expectSuccess()
        let list = try vault.helper(helper, ["list"])
        #expect(list.stdoutText == #"{"registry.example.com":"carl"}"# + "\n")
        try vault.helper(helper, ["erase"], stdin: "https://registry.example.com\n").expectSuccess()
        let erased = try vault.helper(helper, ["erase"], stdin: "registry.example.com\n")
        #expect(erased.status != 0)
        #expect(erased.stdoutText == "credentials not found in native keychain\n")
        let help = try vault.helper(helper, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.hasPrefix("usage: docker-credential-vault "))
        let gitHelp = try vault.helper("git-credential-vault", ["--help"])
        #expect(gitHelp.stdoutText.hasPrefix("usage: git-credential-vault "))
        let version = try vault.helper(helper, ["version"])
        #expect(version.stdoutText.hasPrefix("docker-credential-vault (vault) "))
    }

    @Test("list returns the ServerURL as stored; errors as the reference helpers: stdout, exit 1, nothing stored")
    func referenceContract() throws {
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let helper = "docker-credential-vault"
        // The Docker CLI stores Docker Hub's logins under this URL and looks up the keys list returns.
        try vault.helper(
            helper, ["store"],
            stdin: #"{"ServerURL":"https://index.docker.io/v1/","Username":"hubuser","Secret":"hub-token"}"#
        ).expectSuccess()
        try vault.helper(
            helper, ["store"], stdin: #"{"ServerURL":"ghcr.io","Username":"octo","Secret":"gh-token"}"#
        ).expectSuccess()
        let list = try vault.helper(helper, ["list"])
        list.expectSuccess()
        #expect(list.stdoutText == #"{"https://index.docker.io/v1/":"hubuser","ghcr.io":"octo"}"# + "\n")
        // A later login under another spelling of the same registry is listed as that spelling.
        try vault.helper(
            helper, ["store"], stdin: #"{"ServerURL":"index.docker.io/v1","Username":"other","Secret":"t2"}"#
        ).expectSuccess()
        #expect(
            try vault.helper(helper, ["list"]).stdoutText == #"{"ghcr.io":"octo","index.docker.io/v1":"other"}"# + "\n")

        let cases: [(String, String, String)] = [
            ("store", #"{"ServerURL":"","Username":"u","Secret":"s"}"#, "no credentials server URL"),
            ("store", #"{"ServerURL":"quay.io","Username":"","Secret":"s"}"#, "no credentials username"),
            ("get", "\n", "no credentials server URL"),
            ("erase", "", "no credentials server URL"),
        ]
        for (operation, input, message) in cases {
            let failed = try vault.helper(helper, [operation], stdin: input)
            #expect(failed.status == 1, "\(operation) \(input): \(failed.stderr)")
            #expect(failed.stdoutText == message + "\n", "\(operation) \(input)")
            #expect(failed.stderr.isEmpty, "\(operation) \(input): \(failed.stderr)")
        }
        #expect(
            try vault.run(["ls", "--service", "docker"]).stdoutText
                == "docker://octo@ghcr.io\ndocker://other@index.docker.io/v1\n")
        try vault.helper(helper, ["erase"], stdin: "https://index.docker.io/v1/").expectSuccess()
        try vault.helper(helper, ["erase"], stdin: "ghcr.io").expectSuccess()
        #expect(try vault.helper(helper, ["list"]).stdoutText == "{}\n")
        #expect(try vault.run(["ls", "--service", "docker.server_url"]).stdoutText == "")
    }

    @Test("skopeo login stores through the helper, login --get-login reads it, logout erases it")
    func skopeo() throws {
        try requireComponent(findExecutable("skopeo") == nil ? "skopeo is not installed" : nil)
        let registry = try LoopbackRegistry.shared.get()
        let vault = try VaultRunner.withHelpers()
        defer { vault.cleanUp() }
        let authFile = vault.path("auth.json")
        try Data(#"{"credHelpers": {"\#(registry)": "vault"}}"#.utf8).write(to: URL(fileURLWithPath: authFile))
        let env = ["REGISTRY_AUTH_FILE": authFile]
        let skopeo = findExecutable("skopeo")!
        // The registry listens on plain HTTP on the loopback interface: skopeo would insist on
        // HTTPS (with a certificate to verify) unless told not to.
        let login = try vault.runProgram(
            skopeo, ["login", "--tls-verify=false", "-u", LoopbackRegistry.user, "--password-stdin", registry],
            stdin: Array(LoopbackRegistry.password.utf8), env: env)
        #expect(login.status == 0, "\(login.stderr)")
        // The password went to vault, not into the auth file.
        #expect(!(try String(contentsOfFile: authFile, encoding: .utf8)).contains("auth\""))
        let stored = try vault.run(["get", "--service", "docker", "docker://\(LoopbackRegistry.user)@\(registry)"])
        #expect(stored.stdoutText == LoopbackRegistry.password)
        let whoami = try vault.runProgram(skopeo, ["login", "--get-login", registry], env: env)
        #expect(whoami.stdoutText == LoopbackRegistry.user + "\n", "\(whoami.stderr)")
        let logout = try vault.runProgram(skopeo, ["logout", registry], env: env)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try vault.run(["ls", "--service", "docker"]).stdoutText == "")
        let after = try vault.runProgram(skopeo, ["login", "--get-login", registry], env: env)
        #expect(after.status != 0)
    }
}
