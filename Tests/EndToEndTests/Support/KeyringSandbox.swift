import Foundation
import Testing
import VaultTestSupport

/// Runs shell scripts that call vault as a throw-away user id made for one test, so that the
/// test's kernel keys (the user keyring is per uid) cannot meet another test's or another
/// person's: root's user keyring is shared by everything that runs as root on this machine.
///
/// A script runs in a new session keyring of its own (`keyctl session -`) unless the test asks
/// for the keyring it inherits (then it has none of its own: the one it inherits is root's).
/// Its environment is clean: `vault` (a copy the uid can run) first in PATH, HOME and the vault
/// file in the sandbox's folder, which the uid owns.
struct KeyringSandbox {
    let directory: URL
    let uid: UInt32
    static let keyctl = "/usr/bin/keyctl"
    static let setpriv = "/usr/bin/setpriv"

    /// A keyring component missing fails under `make test` (it installs keyutils), else skips.
    static func make() throws -> KeyringSandbox {
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: keyctl)
                ? nil : "\(keyctl) is not installed (Debian package keyutils)")
        try requireComponent(
            FileManager.default.isExecutableFile(atPath: setpriv) ? nil : "\(setpriv) is not installed (util-linux)")
        try requireComponent(geteuid() == 0 ? nil : "the keyring tests make throw-away users: they run as root")
        return try KeyringSandbox()
    }

    private init() throws {
        directory = try makeTemporaryDirectory(prefix: "vault-unlock")
        uid = UInt32.random(in: 400_000..<1_400_000)
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: VaultRunner.binary, toPath: bin.appendingPathComponent("vault").path)
        for path in [directory.path, bin.path, bin.appendingPathComponent("vault").path] {
            chmod(path, 0o755)
            chown(path, uid, uid)
        }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    var vaultFile: String { path("vault.age") }

    func cleanUp() { removeTemporaryDirectory(directory) }

    var environment: [String: String] {
        [
            "PATH": directory.appendingPathComponent("bin").path + ":/usr/local/bin:/usr/bin:/bin",
            "HOME": directory.path, "VAULT_FILE": vaultFile, "VAULT_SCRYPT_WORK_FACTOR": "10",
            "VAULT_BACKEND": "file", "LANG": "C.UTF-8", "SANDBOX": directory.path,
        ]
    }

    /// The command line that runs `script` with `sh -e`-less `sh -c` as the sandbox's uid.
    func command(_ script: String, ownSession: Bool = true) -> [String] {
        ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"]
            + (ownSession ? [Self.keyctl, "session", "-"] : []) + ["/bin/sh", "-c", script]
    }

    /// Runs `script` without a terminal.
    func run(_ script: String, ownSession: Bool = true) throws -> ToolResult {
        try runTool(Self.setpriv, command(script, ownSession: ownSession), environment: environment)
    }

    /// Runs `script` on a pseudo-terminal that types `passphrase` at every passphrase prompt;
    /// everything written to the terminal is in the result's `stderr`.
    func runOnTerminal(typing passphrase: String, _ script: String, ownSession: Bool = true) throws -> ToolResult {
        try VaultTestSupport.runOnTerminal(
            typing: passphrase, Self.setpriv, command(script, ownSession: ownSession), environment: environment)
    }
}

extension ToolResult {
    /// How many passphrase prompts the terminal showed.
    var prompts: Int { stderr.components(separatedBy: "Passphrase for ").count - 1 }

    /// The value of `name=VALUE` lines a script printed with `echo name=$?`.
    func reported(_ name: String, in text: String? = nil) -> String? {
        for line in (text ?? stdoutText + "\n" + stderr).split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix(name + "=") { return String(line.dropFirst(name.count + 1)) }
        }
        return nil
    }
}
