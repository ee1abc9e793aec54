import Foundation
import Testing
import VaultTestSupport

/// `vault completion`: each script is loaded into its real shell and asked for completions.
@Suite("Shell completion, end to end")
struct CompletionTests {
    /// A vault with a few names, and PATH leading to the binary under test.
    func prepared() throws -> VaultRunner {
        var vault = try VaultRunner.scripted()
        vault.environment["PATH"] = VaultRunner.binaryDirectory + ":/usr/local/bin:/usr/bin:/bin"
        for name in ["ci/npm-token", "github", "has space"] { try vault.set(name, "x") }
        return vault
    }

    /// The path of `shell`; a missing shell fails under `make test` (it installs zsh and fish).
    static func requireShell(_ shell: String) throws -> String {
        let found = VaultRunner.which(shell)
        try requireComponent(found == nil ? "\(shell) is not installed (Debian package \(shell))" : nil)
        return try #require(found)
    }

    func script(_ shell: String, _ vault: VaultRunner) throws -> String {
        let result = try vault.run(["completion", shell])
        result.expectSuccess()
        let path = vault.path("completion.\(shell)")
        try result.stdout.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: path)) }
        return path
    }

    /// COMPREPLY after sourcing the bash script with COMP_WORDS = `words` (the last is the word
    /// being completed).
    func bash(_ words: [String], _ vault: VaultRunner, _ script: String, env: [String: String] = [:]) throws -> [String]
    {
        let program = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _vault
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try vault.runProgram("/bin/bash", ["--norc", "-c", program, "bash", script] + words, env: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test("bash: commands, options, option values, secret names, and the command after exec --")
    func bashCompletion() throws {
        let vault = try prepared()
        defer { vault.cleanUp() }
        let script = try script("bash", vault)
        #expect(try bash(["vault", ""], vault, script).contains("exec"))
        #expect(try bash(["vault", "co"], vault, script) == ["completion"])
        #expect(
            try bash(["vault", "--"], vault, script) == ["--backend", "--file", "--service", "--help", "--version"])
        #expect(try bash(["vault", "get", ""], vault, script) == ["ci/npm-token", "github", "has\\ space"])
        #expect(try bash(["vault", "rm", "g"], vault, script) == ["github"])
        #expect(
            try bash(["vault", "show", "--"], vault, script) == [
                "--json", "--backend", "--file", "--service", "--help",
            ])
        #expect(try bash(["vault", "ls", "--e"], vault, script) == ["--expired"])
        #expect(try bash(["vault", "ot"], vault, script) == ["otp"])
        #expect(try bash(["vault", "otp", "--m"], vault, script) == ["--min-valid"])
        #expect(try bash(["vault", "otp", "g"], vault, script) == ["github"])
        #expect(try bash(["vault", "--backend", ""], vault, script) == ["auto", "file", "secret-service", "openbao"])
        #expect(try bash(["vault", "export", "--format", "j"], vault, script) == ["json"])
        #expect(try bash(["vault", "completion", ""], vault, script) == ["bash", "zsh", "fish"])
        #expect(try bash(["vault", "help", "im"], vault, script) == ["import"])
        #expect(try bash(["vault", "exec", "--env", "c"], vault, script) == ["ci/npm-token"])
        #expect(try bash(["vault", "exec", "--env", "X", "=", "g"], vault, script) == ["github"])
        #expect(try bash(["vault", "exec", "--all", "--", "bas"], vault, script).contains("bash"))
        #expect(try bash(["vault", "exec", "--al"], vault, script) == ["--all", "--allow-expired"])
        // The names come from the store the command line names: another service has none.
        #expect(try bash(["vault", "--service", "elsewhere", "get", ""], vault, script).isEmpty)
        #expect(try bash(["vault", "--service", vault.service, "get", "gi"], vault, script) == ["github"])
    }

    @Test("bash: completing never prompts; without a key there are just no names")
    func noPrompt() throws {
        var vault = try prepared()
        defer { vault.cleanUp() }
        let script = try script("bash", vault)
        vault.environment.removeValue(forKey: "VAULT_IDENTITY")
        #expect(try bash(["vault", "get", ""], vault, script).isEmpty)
        #expect(try bash(["vault", "get", ""], vault, script, env: ["VAULT_PASSPHRASE": "wrong"]).isEmpty)
        #expect(try bash(["vault", "g"], vault, script) == ["get", "git"])
    }

    @Test("zsh: the script parses, and with compsys stubbed offers the same words")
    func zshCompletion() throws {
        let zsh = try Self.requireShell("zsh")
        let vault = try prepared()
        defer { vault.cleanUp() }
        let script = try script("zsh", vault)
        let syntax = try vault.runProgram(zsh, ["-n", script])
        #expect(syntax.status == 0, "\(syntax.stderr)")
        // compadd, _describe and friends only work inside a completion widget; these stand-ins
        // print what would be offered, so the script's own logic runs for real.
        let stubs = """
            compdef() { : }
            compadd() { while (( $# )); do if [[ $1 == -- ]]; then shift; print -rl -- "$@"; return; fi; shift; done }
            _describe() { local array=${@[-1]}; print -rl -- ${${(P)array}%%:*} }
            _files() { print -r -- '<files>' }
            _normal() { print -r -- "<normal $words[1] $CURRENT>" }
            compset() { return 0 }
            source "$1"; shift
            words=("$@"); CURRENT=$#words
            _vault
            """
        func offered(_ words: [String]) throws -> [String] {
            let result = try vault.runProgram(zsh, ["-f", "-c", stubs, "zsh", script] + words)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            return result.stdoutText.split(separator: "\n").map(String.init)
        }
        #expect(try offered(["vault", ""]).contains("completion"))
        #expect(try offered(["vault", "get", ""]) == ["ci/npm-token", "github", "has space"])
        #expect(try offered(["vault", "--backend", ""]) == ["auto", "file", "secret-service", "openbao"])
        #expect(
            try offered(["vault", "ls", "--"]) == [
                "--json", "--long", "--expired", "--all", "--backend", "--file", "--service", "--help",
            ])
        #expect(try offered(["vault", "exec", "--all", "--", "ech"]) == ["<normal ech 1>"])
        #expect(try offered(["vault", "--service", "elsewhere", "get", ""]).allSatisfy(\.isEmpty))
    }

    @Test("fish: the script parses, and complete -C offers commands, options and names")
    func fishCompletion() throws {
        let fish = try Self.requireShell("fish")
        let vault = try prepared()
        defer { vault.cleanUp() }
        let script = try script("fish", vault)
        let syntax = try vault.runProgram(fish, ["--no-config", "-n", script])
        #expect(syntax.status == 0, "\(syntax.stderr)")
        func offered(_ line: String) throws -> [String] {
            let result = try vault.runProgram(
                fish, ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line],
                env: ["HOME": vault.directory.path])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            return result.stdoutText.split(separator: "\n").map {
                String($0.split(separator: "\t", maxSplits: 1).first ?? "")
            }
        }
        #expect(try offered("vault ").contains("exec"))
        #expect(try offered("vault ge") == ["get"])
        #expect(try offered("vault get ") == ["ci/npm-token", "github", "has space"])
        #expect(try offered("vault ls --l") == ["--long"])
        #expect(try offered("vault --backend ") == ["auto", "file", "openbao", "secret-service"])
        #expect(try offered("vault exec --env ") == ["ci/npm-token", "github", "has space"])
        #expect(try offered("vault exec --all -- bas").contains("bash"))
        #expect(try offered("vault --service elsewhere get ").isEmpty)
    }

    @Test("an unknown shell is a usage error")
    func unknownShell() throws {
        let vault = try VaultRunner.scripted()
        defer { vault.cleanUp() }
        try vault.run(["completion", "tcsh"]).expectFailure(2, "use bash, zsh or fish")
        try vault.run(["completion"]).expectFailure(2, "takes 1 operand")
    }
}
