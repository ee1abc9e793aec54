import Testing
import VaultTestSupport

/// `vault doctor`'s last line names the backend and the rule that chose it: the reason
/// `resolvedBackend` gives (checked in-process in VaultCommandLineTests' DoctorReasonTests).
@Suite("Doctor: the chosen line")
struct DoctorReasonEndToEndTests {
    @Test("without a session bus, each rule is named as resolvedBackend gives it")
    func chosenLines() throws {
        var vault = try VaultRunner()
        defer { vault.cleanUp() }
        vault.environment.removeValue(forKey: "VAULT_FILE")
        let file = vault.path("named.age")
        let cases: [([String], [String: String], String)] = [
            (["doctor"], [:], "chosen: file (auto: no Secret Service, so the file)"),
            (["doctor"], ["VAULT_FILE": file], "chosen: file (auto: a vault file was named (--file or VAULT_FILE))"),
            (["--file", file, "doctor"], [:], "chosen: file (auto: a vault file was named (--file or VAULT_FILE))"),
            (["--backend", "file", "doctor"], [:], "chosen: file (--backend file)"),
            (["doctor"], ["VAULT_BACKEND": "file"], "chosen: file (VAULT_BACKEND=file)"),
            (["--backend", "openbao", "doctor"], [:], "chosen: openbao (--backend openbao)"),
        ]
        for (arguments, env, line) in cases {
            let result = try vault.run(arguments, env: env)
            #expect(result.stdoutText.hasSuffix(line + "\n"), "\(arguments) \(env): \(result.stdoutText)")
            // The file is usable (not created yet); the openbao backend without BAO_ADDR is not.
            #expect(result.status == (line.contains("openbao") ? 5 : 0), "\(result.stderr)")
        }
        // A file not created yet: the library says so (a fact), the tool names the command that creates it.
        let fresh = try vault.run(["doctor"], env: ["VAULT_FILE": vault.path("fresh.age")])
        #expect(fresh.stdoutText.contains("fresh.age (not created yet); unlocked with "), "\(fresh.stdoutText)")
        #expect(fresh.stdoutText.contains("; the first 'vault set' creates it"), "\(fresh.stdoutText)")
    }
}
