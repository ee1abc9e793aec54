import Foundation
import Testing
import VaultAge
import VaultSecureBytes
import VaultTestSupport

/// A git repository whose team keeps its vault file at `deploy/secrets.age`, and the people who
/// work in it: each with their own age identity file, HOME and state folder (so their own
/// trusted headers), as on their own machines. Everyone works in the one work tree, taking turns.
struct GitTeam {
    static let relative = "deploy/secrets.age"
    let directory: URL
    var repo: String { directory.appendingPathComponent("repo").path }
    var file: String { repo + "/" + Self.relative }
    private(set) var identities: [String: X25519Identity] = [:]

    /// A repository with one commit holding a vault file encrypted to `members`' keys (made by
    /// the first of them), set up with `vault git setup` unless `setup` is false.
    init(members: [String], others: [String] = [], passphrase: String? = nil, setup: Bool = true) throws {
        directory = try makeTemporaryDirectory(prefix: "vault-git")
        for person in members + others {
            let identity = X25519Identity.generate()
            identities[person] = identity
            let home = directory.appendingPathComponent(person)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try Data((identity.encoded + "\n").utf8).write(to: home.appendingPathComponent("key.txt"))
            chmod(home.appendingPathComponent("key.txt").path, 0o600)
        }
        self.passphrase = passphrase
        try git(members[0], ["init", "-q", "-b", "main", repo], inRepo: false).expectSuccess()
        try FileManager.default.createDirectory(
            atPath: repo + "/deploy", withIntermediateDirectories: true)
        let recipients = members.flatMap { ["--recipient", identities[$0]!.recipient.encoded] }
        try vault(members[0], ["init"] + (passphrase == nil ? recipients : ["--passphrase"])).expectSuccess()
        if setup { try vaultInRepo(members[0], ["git", "setup", Self.relative]).expectSuccess() }
    }

    /// The team passphrase, for a passphrase file (then everyone uses it).
    let passphrase: String?

    func cleanUp() { removeTemporaryDirectory(directory) }

    /// `person`'s environment: their key, HOME and state; git kept away from the machine's settings.
    func environment(_ person: String) -> [String: String] {
        let home = directory.appendingPathComponent(person).path
        var env = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": home + "/state",
            "XDG_CONFIG_HOME": home + "/config", "LANG": "C.UTF-8", "VAULT_SCRYPT_WORK_FACTOR": "10",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": person,
            "GIT_AUTHOR_EMAIL": "\(person)@example.com", "GIT_COMMITTER_NAME": person,
            "GIT_COMMITTER_EMAIL": "\(person)@example.com", "GIT_EDITOR": "true", "VAULT_BACKEND": "file",
        ]
        if let passphrase {
            env["VAULT_PASSPHRASE"] = passphrase
        } else if identities[person] != nil {
            env["VAULT_IDENTITY_FILE"] = home + "/key.txt"
        }
        return env
    }

    /// Runs vault as `person` on the team's file.
    @discardableResult
    func vault(_ person: String, _ arguments: [String], stdin: [UInt8] = [], file: String? = nil) throws -> ToolResult {
        try runTool(
            VaultRunner.binary, ["--file", file ?? self.file] + arguments, input: stdin,
            environment: environment(person), timeout: 120)
    }

    /// Runs vault as `person` in the top folder of the work tree.
    func vaultInRepo(_ person: String, _ arguments: [String]) throws -> ToolResult {
        try runTool(
            "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", repo, VaultRunner.binary] + arguments,
            environment: environment(person), timeout: 120)
    }

    /// Runs git as `person` in the work tree.
    @discardableResult
    func git(_ person: String, _ arguments: [String], inRepo: Bool = true, unset: [String] = []) throws -> ToolResult {
        var env = environment(person)
        for name in unset { env.removeValue(forKey: name) }
        return try runTool("/usr/bin/git", (inRepo ? ["-C", repo] : []) + arguments, environment: env, timeout: 120)
    }

    /// Sets `name` to `value` as `person`; the test fails unless vault exits 0.
    func set(
        _ person: String, _ name: String, _ value: String, _ options: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try vault(person, ["set", name] + options, stdin: Array(value.utf8)).expectSuccess(
            sourceLocation: sourceLocation)
    }

    /// Commits the vault file (and .gitattributes) as `person`.
    func commit(_ person: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try git(person, ["add", "-A"]).expectSuccess(sourceLocation: sourceLocation)
        try git(person, ["commit", "-q", "-m", message]).expectSuccess(sourceLocation: sourceLocation)
    }

    /// The secrets of the vault file at `path` (the team's file), account → value, read by
    /// `person`'s key in the test process.
    func contents(_ person: String, _ path: String? = nil) throws -> [String: String] {
        let path = path ?? file
        if let passphrase {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let plain = try Age.decrypt(
                [UInt8](bytes), identities: [ScryptIdentity(passphrase: SecureBytes(passphrase.utf8))]
            ).unprotectedArray
            var result: [String: String] = [:]
            for line in plain.split(separator: 0x0A).dropFirst() {
                let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
                let value = Data(base64Encoded: object["value"] as! String)!
                result[object["account"] as! String] = String(decoding: value, as: UTF8.self)
            }
            return result
        }
        return try VaultState.read(path, identity: identities[person]!).get().mapValues {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// As `person`, who can push but holds no team key, replaces the team's file on the current
    /// branch with one of their own, encrypted to every member's public key and theirs, and
    /// commits it; returns the file.
    func plantFile(as person: String) throws -> [UInt8] {
        let recipients = identities.values.map { $0.recipient as any AgeRecipient }
        let planted = try Age.encrypt(
            HeaderTrustTests.document("planted", Array("planted-VALUE-m".utf8)), to: recipients)
        try Data(planted).write(to: URL(fileURLWithPath: file))
        try commit(person, "innocent change")
        return planted
    }

    /// The bytes of the team's file in the work tree.
    var fileBytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))) ?? [] }
}
