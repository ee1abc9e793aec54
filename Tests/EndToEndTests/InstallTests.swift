import Foundation
import Testing
import VaultTestSupport

/// `make install` and `make uninstall` into a DESTDIR, with the binary under test standing in for
/// the release build (INSTALL_BINARY): the layout, the stripped binary, the helper links, the
/// completions bash finds by itself, a program named otherwise, and the warning about another vault.
@Suite("make install, end to end")
struct InstallTests {
    struct Staging {
        let vault: VaultRunner
        var destination: String { vault.path("stage") }
        var bin: String { destination + "/usr/bin" }

        init() throws {
            vault = try VaultRunner.scripted()
        }

        /// Runs `make TARGET DESTDIR=... PREFIX=/usr INSTALL_BINARY=...` in the package.
        func make(_ target: String, _ extra: [String] = [], path: String = "/usr/bin:/bin") throws -> ToolResult {
            try runTool(
                findExecutable("make") ?? "/usr/bin/make",
                [
                    "-s", "-C", VaultRunner.packageRoot.path, target, "DESTDIR=\(destination)", "PREFIX=/usr",
                    "INSTALL_BINARY=\(VaultRunner.binary)",
                ] + extra,
                environment: ["PATH": path, "HOME": vault.directory.path])
        }

        /// Every file and link under the staging folder, relative to it.
        func installed() -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: destination)
            var files: [String] = []
            while let path = enumerator?.nextObject() as? String {
                var isDirectory: ObjCBool = false
                let full = destination + "/" + path
                let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: full)) != nil
                if isLink
                    || (FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
                        && !isDirectory.boolValue)
                {
                    files.append(path)
                }
            }
            return files.sorted()
        }
    }

    @Test("install puts everything where it belongs, stripped; uninstall removes all of it")
    func layout() throws {
        let stage = try Staging()
        defer { stage.vault.cleanUp() }
        let install = try stage.make("install")
        #expect(install.status == 0, "\(install.stderr)")
        #expect(
            stage.installed() == [
                "usr/bin/docker-credential-vault", "usr/bin/git-credential-vault", "usr/bin/vault",
                "usr/share/bash-completion/completions/vault", "usr/share/fish/vendor_completions.d/vault.fish",
                "usr/share/man/man1/vault.1", "usr/share/zsh/site-functions/_vault",
            ])
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: stage.bin + "/git-credential-vault") == "vault")
        // Stripped: no symbol table and no debug information left.
        let sections = try runTool("/usr/bin/readelf", ["-S", "-W", stage.bin + "/vault"])
        #expect(sections.status == 0)
        #expect(!sections.stdoutText.contains(".symtab"))
        #expect(!sections.stdoutText.contains(".debug_info"))
        let version = try stage.vault.runProgram(stage.bin + "/vault", ["--version"])
        #expect(version.stdoutText.hasPrefix("vault "))

        let uninstall = try stage.make("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(stage.installed() == [])
    }

    @Test("installed completions: bash with bash-completion completes vault ge<TAB> without sourcing by hand")
    func bashFindsCompletions() throws {
        try requireComponent(
            FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion")
                ? nil : "bash-completion is not installed")
        let stage = try Staging()
        defer { stage.vault.cleanUp() }
        try #require(try stage.make("install").status == 0)
        // What an interactive shell does: load bash-completion, which loads a command's
        // completion on first use from XDG_DATA_DIRS; then press TAB after `vault ge`.
        let script = """
            source /usr/share/bash-completion/bash_completion
            COMP_WORDS=(vault ge); COMP_CWORD=1; COMP_LINE='vault ge'; COMP_POINT=${#COMP_LINE}
            _completion_loader vault
            function=$(complete -p vault | sed -n 's/.*-F \\([^ ]*\\) .*/\\1/p')
            "$function" vault ge vault
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try stage.vault.runProgram(
            "/bin/bash", ["--norc", "--noprofile", "-c", script],
            env: ["XDG_DATA_DIRS": stage.destination + "/usr/share", "PATH": stage.bin + ":/usr/bin:/bin"])
        #expect(result.stdoutText == "get\n", "stderr: \(result.stderr)")
    }

    @Test("NAME installs under another name; helpers reach it; a foreign vault on PATH is warned about, ours is not")
    func otherName() throws {
        let stage = try Staging()
        defer { stage.vault.cleanUp() }
        let elsewhere = stage.vault.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try Data("#!/bin/sh\necho Vault v1.15.0\n".utf8).write(to: URL(fileURLWithPath: elsewhere + "/vault"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: elsewhere + "/vault")
        let warned = try stage.make("install", path: elsewhere + ":/usr/bin:/bin")
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("warning: another vault is on PATH: \(elsewhere)/vault"), "\(warned.stderr)")

        // This project's own earlier install (`vault --version` prints `vault 1.0.0`; HashiCorp's
        // prints `Vault v1.15.0`) is no foreign program: a note, no warning.
        let earlier = stage.vault.path("earlier")
        try FileManager.default.createDirectory(atPath: earlier, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: earlier + "/vault", withDestinationPath: VaultRunner.binary)
        let noted = try stage.make("install", path: earlier + ":/usr/bin:/bin")
        #expect(noted.status == 0)
        #expect(!noted.stderr.contains("warning"), "\(noted.stderr)")
        #expect(noted.stderr.contains("note: an earlier install of this vault is on PATH: \(earlier)/vault"))

        let renamed = try stage.make("install", ["NAME=vault-cli"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(FileManager.default.fileExists(atPath: stage.bin + "/vault-cli"))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: stage.bin + "/git-credential-vault")
                == "vault-cli")
        // The helper runs the renamed binary and answers the protocol.
        let get = try stage.vault.runProgram(
            stage.bin + "/docker-credential-vault", ["get"], stdin: Array("registry.example.com\n".utf8))
        #expect(get.stdoutText == "credentials not found in native keychain\n", "\(get.stderr)")
        try #require(try stage.make("uninstall", ["NAME=vault-cli"]).status == 0)
        try #require(try stage.make("uninstall").status == 0)
        #expect(stage.installed() == [])
    }
}
