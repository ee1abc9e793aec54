import Foundation
import Testing
import VaultAge
import VaultTestSupport

/// A team's vault file in a real git repository (`vault git setup`, textconv, merge driver):
/// merges, rebases and cherry-picks by secret, the recipients guard, and no value in any diff.
@Suite("Vault file in git")
struct GitMergeTests {
    /// Every value the tests store: none may appear in anything git prints.
    static let values = [
        "npm-VALUE-one", "npm-VALUE-two", "sentry-VALUE-b", "db-VALUE-1", "db-VALUE-alice",
        "db-VALUE-bob", "old-VALUE-x", "api-VALUE-carol", "planted-VALUE-m",
    ]

    static func expectNoValue(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for value in values {
            #expect(!text.contains(value), "a value appears: \(value)", sourceLocation: sourceLocation)
        }
    }

    @Test("setup is idempotent; merges, a rebase and a cherry-pick take each side's secrets; diffs show no value")
    func mergeRebaseCherryPick() throws {
        let team = try GitTeam(members: ["alice", "bob"])
        defer { team.cleanUp() }
        let again = try team.vaultInRepo("alice", ["git", "setup", GitTeam.relative])
        again.expectSuccess()
        #expect(again.stdoutText.contains("nothing to change"), "\(again.stdoutText)")
        let attributes = try String(contentsOfFile: team.repo + "/.gitattributes", encoding: .utf8)
        #expect(attributes == "/deploy/secrets.age binary\n")
        // Every write leaves the lock beside the file: the committed .gitignore keeps it out of git.
        let ignored = try String(contentsOfFile: team.repo + "/.gitignore", encoding: .utf8)
        #expect(ignored == "/deploy/secrets.age.lock\n")
        #expect(FileManager.default.fileExists(atPath: team.file + ".lock"))
        let status = try team.git("alice", ["status", "--porcelain", "--untracked-files=all"])
        #expect(
            status.stdoutText.split(separator: "\n").sorted() == [
                "?? .gitattributes", "?? .gitignore", "?? deploy/secrets.age",
            ], "\(status.stdoutText)")
        let config = try team.git("alice", ["config", "--local", "merge.vault.driver"]).stdoutText
        #expect(config.hasPrefix("'\(VaultRunner.binary)' git merge %O %A %B %P"), "\(config)")

        try team.set("alice", "npm", "npm-VALUE-one")
        try team.set("alice", "db", "db-VALUE-1", ["--expires-in", "30d"])
        try team.set("alice", "old", "old-VALUE-x")
        try team.commit("alice", "base")
        let header = try Age.header(of: team.fileBytes)

        // bob: adds sentry, rotates npm, re-dates db (a new expiry), in two commits.
        try team.git("bob", ["checkout", "-q", "-b", "bob"]).expectSuccess()
        try team.set("bob", "sentry", "sentry-VALUE-b")
        try team.commit("bob", "add sentry")
        try team.set("bob", "npm", "npm-VALUE-two")
        try team.vault("bob", ["set", "db", "--expires-in", "60d"], stdin: Array("db-VALUE-1".utf8)).expectSuccess()
        try team.commit("bob", "rotate npm, extend db")
        let bobExpiry = try VaultFile.read(team.file, identity: team.identities["bob"]!)["vault\tdb"]?.expires

        // alice: removes old.
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.vault("alice", ["rm", "old"]).expectSuccess()
        try team.commit("alice", "remove old")

        let merged = try team.git("alice", ["merge", "-q", "--no-edit", "bob"])
        merged.expectSuccess()
        #expect(try team.contents("alice") == ["npm": "npm-VALUE-two", "db": "db-VALUE-1", "sentry": "sentry-VALUE-b"])
        #expect(try VaultFile.read(team.file, identity: team.identities["alice"]!)["vault\tdb"]?.expires == bobExpiry)
        #expect(try Age.header(of: team.fileBytes) == header, "a merge that kept the recipients changed the header")
        try team.set("alice", "after", "x")  // no `vault trust` needed
        try team.git("alice", ["checkout", "-q", "--", "."]).expectSuccess()

        // The history, as reviewers see it: names, dates and fingerprints, never a value.
        let log = try team.git("alice", ["log", "-p", "--all"])
        log.expectSuccess()
        Self.expectNoValue(log.stdoutText)
        #expect(log.stdoutText.contains("+vault/sentry created="), "\(log.stdoutText)")
        #expect(log.stdoutText.contains("-vault/old created="))
        #expect(log.stdoutText.contains("fingerprints are keyed by the file key"))
        #expect(!log.stdoutText.contains("Binary files"))

        // A rebase of bob's two commits onto a main that changed on.
        try team.git("bob", ["checkout", "-q", "-b", "bob2", "bob~2"]).expectSuccess()
        try team.set("bob", "api", "api-VALUE-carol")
        try team.commit("bob", "add api")
        try team.git("bob", ["rebase", "-q", "main"]).expectSuccess()
        #expect(
            try team.contents("bob") == [
                "npm": "npm-VALUE-two", "db": "db-VALUE-1", "sentry": "sentry-VALUE-b", "api": "api-VALUE-carol",
            ])

        // A cherry-pick of "add sentry" onto a branch from the base.
        try team.git("bob", ["checkout", "-q", "-b", "pick", "main~2"]).expectSuccess()
        try team.vault("bob", ["rm", "npm"]).expectSuccess()
        try team.commit("bob", "drop npm")
        try team.git("bob", ["cherry-pick", "bob~1"]).expectSuccess()
        #expect(try team.contents("bob") == ["db": "db-VALUE-1", "old": "old-VALUE-x", "sentry": "sentry-VALUE-b"])
    }

    @Test("changes on both sides are a conflict that names each secret; both sides stay reachable; vault resolves it")
    func conflicts() throws {
        let team = try GitTeam(members: ["alice", "bob"])
        defer { team.cleanUp() }
        try team.set("alice", "db", "db-VALUE-1")
        try team.set("alice", "old", "old-VALUE-x")
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        try team.git("bob", ["checkout", "-q", "-b", "bob"]).expectSuccess()
        try team.set("bob", "db", "db-VALUE-bob")
        try team.set("bob", "old", "old-VALUE-x", ["--expires-in", "1d"])
        try team.set("bob", "sentry", "sentry-VALUE-b")
        try team.commit("bob", "bob's changes")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.set("alice", "db", "db-VALUE-alice")
        try team.vault("alice", ["rm", "old"]).expectSuccess()
        // The same change on both sides (only the times differ) is no conflict.
        try team.set("alice", "sentry", "sentry-VALUE-b")
        try team.commit("alice", "alice's changes")

        let merge = try team.git("alice", ["merge", "--no-edit", "bob"])
        #expect(merge.status != 0)
        #expect(
            merge.stdoutText.contains("CONFLICT") && merge.stdoutText.contains(GitTeam.relative), "\(merge.stdoutText)")
        #expect(merge.stderr.contains("vault/db changed differently on both sides"), "\(merge.stderr)")
        #expect(merge.stderr.contains("vault/old removed on your side, changed on theirs"), "\(merge.stderr)")
        #expect(!merge.stderr.contains("vault/sentry") && !merge.stderr.contains("vault/npm"), "\(merge.stderr)")
        Self.expectNoValue(merge.stdoutText + merge.stderr)
        // The commands to resolve it quote the path for the shell and keep their side in a fresh
        // temporary file, not a fixed name in /tmp.
        #expect(
            merge.stderr.contains(
                "to resolve: theirs=$(mktemp) && git show ':3:deploy/secrets.age' > \"$theirs\"; "
                    + "vault --file \"$theirs\" get NAME; vault --file 'deploy/secrets.age' set NAME (or rm); "
                    + "git add -- 'deploy/secrets.age'; rm -f \"$theirs\""), "\(merge.stderr)")
        #expect(!merge.stderr.contains("/tmp/"), "\(merge.stderr)")
        // The working file opens with vault: alice's versions of the conflicts, every other change.
        #expect(
            try team.contents("alice") == ["db": "db-VALUE-alice", "npm": "npm-VALUE-one", "sentry": "sentry-VALUE-b"])
        let theirs = team.directory.appendingPathComponent("theirs.age").path
        let shown = try team.git("alice", ["show", ":3:\(GitTeam.relative)"])
        try Data(shown.stdout).write(to: URL(fileURLWithPath: theirs))
        #expect(try team.vault("alice", ["get", "db"], file: theirs).stdoutText == "db-VALUE-bob")
        // git diff during the conflict shows no value either.
        Self.expectNoValue(try team.git("alice", ["diff"]).stdoutText)

        try team.set("alice", "db", "db-VALUE-bob")
        try team.commit("alice", "merge bob")
        #expect(try team.contents("bob")["db"] == "db-VALUE-bob")
    }

    @Test("a branch re-encrypted to the team plus an attacker: a conflict, and no secret goes to the attacker")
    func attack() throws {
        let team = try GitTeam(members: ["alice", "bob"], others: ["mallory"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        let header = try Age.header(of: team.fileBytes)
        try team.git("mallory", ["checkout", "-q", "-b", "mallory"]).expectSuccess()
        _ = try team.plantFile(as: "mallory")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.set("alice", "db", "db-VALUE-alice")
        try team.commit("alice", "add db")

        let merge = try team.git("alice", ["merge", "--no-edit", "mallory"])
        #expect(merge.status != 0)
        #expect(merge.stdoutText.contains("CONFLICT"), "\(merge.stdoutText)")
        #expect(
            merge.stderr.contains(
                "the recipients changed on the other side (now 3 age public keys, yours: 2 age public keys)"),
            "\(merge.stderr)")
        #expect(try Age.header(of: team.fileBytes) == header, "the merged file must keep alice's recipients")
        #expect {
            try Age.decrypt(team.fileBytes, identities: [team.identities["mallory"]!])
        } throws: { ($0 as? AgeError)?.kind == .noMatch }
        #expect(try team.contents("alice")["db"] == "db-VALUE-alice")
        try team.set("alice", "later", "x")  // alice's own header: still hers to write
    }

    @Test(
        "main fast-forwarded to a file re-encrypted to an attacker: merging a new secret is a conflict, nothing written"
    )
    func fastForwardToAttack() throws {
        let team = try GitTeam(members: ["alice", "bob"], others: ["mallory"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        // bob adds a secret on a branch: his record now holds the team's header.
        try team.git("bob", ["checkout", "-q", "-b", "feature"]).expectSuccess()
        try team.set("bob", "new/secret", "db-VALUE-bob")
        try team.commit("bob", "add new/secret")
        try team.git("bob", ["branch", "-q", "bob-main", "main"]).expectSuccess()
        // Mallory can push to main.
        try team.git("mallory", ["checkout", "-q", "main"]).expectSuccess()
        let planted = try team.plantFile(as: "mallory")

        // bob fast-forwards (git runs no driver); vault's own writes now stop.
        try team.git("bob", ["checkout", "-q", "bob-main"]).expectSuccess()
        try team.git("bob", ["merge", "-q", "--ff-only", "main"]).expectSuccess()
        try team.vault("bob", ["set", "other"], stdin: Array("x".utf8)).expectFailure(6, "the recipients of")
        // Run from a subfolder: git runs the driver at the top, where its path names the file.
        let merge = try team.git("bob", ["-C", "deploy", "merge", "--no-edit", "feature"])
        #expect(merge.status != 0)
        #expect(merge.stdoutText.contains("CONFLICT"), "\(merge.stdoutText)")
        #expect(
            merge.stderr.contains(
                "the recipients of your side changed since you last wrote it (now 3 age public keys, you wrote it "
                    + "to 2 age public keys, 1 added); nothing was merged"), "\(merge.stderr)")
        #expect(
            merge.stderr.contains(
                "vault --file 'deploy/secrets.age' trust && git checkout -m -- 'deploy/secrets.age'"), "\(merge.stderr)"
        )
        Self.expectNoValue(merge.stdoutText + merge.stderr)
        #expect(team.fileBytes == planted, "nothing may be written under mallory's header")
        // Nothing mallory's key opens holds the new secret: the work tree, nor any version git kept.
        #expect(try team.contents("mallory")["new/secret"] == nil)
        for stage in 1...3 {
            let blob = try team.git("bob", ["show", ":\(stage):\(GitTeam.relative)"])
            blob.expectSuccess()
            let copy = team.directory.appendingPathComponent("stage\(stage).age").path
            try Data(blob.stdout).write(to: URL(fileURLWithPath: copy))
            if let opened = try? team.contents("mallory", copy) { #expect(opened["new/secret"] == nil) }
        }
        try team.git("bob", ["merge", "--abort"]).expectSuccess()
    }

    @Test("a rekey on one side: taken when it is ours, a conflict until accepted when it is theirs")
    func rekeys() throws {
        let team = try GitTeam(members: ["alice", "bob"], others: ["carol"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        // bob adds carol on his branch; alice changes a secret on main.
        try team.git("bob", ["checkout", "-q", "-b", "bob"]).expectSuccess()
        let all = ["alice", "bob", "carol"].flatMap { ["--recipient", team.identities[$0]!.recipient.encoded] }
        try team.vault("bob", ["rekey"] + all).expectSuccess()
        try team.set("bob", "api", "api-VALUE-carol")
        try team.commit("bob", "add carol")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.set("alice", "npm", "npm-VALUE-two")
        try team.commit("alice", "rotate npm")

        let merge = try team.git("alice", ["merge", "--no-edit", "bob"])
        #expect(merge.status != 0)
        #expect(merge.stderr.contains("now 3 age public keys, yours: 2 age public keys"), "\(merge.stderr)")
        // Alice checks with the team, then accepts as the message says; git runs the driver again.
        try team.git("alice", ["checkout", "--theirs", GitTeam.relative]).expectSuccess()
        try team.vault("alice", ["trust"]).expectSuccess()
        let redo = try team.git("alice", ["checkout", "-m", GitTeam.relative])
        redo.expectSuccess()
        #expect(try team.contents("carol") == ["npm": "npm-VALUE-two", "api": "api-VALUE-carol"], "\(redo.stderr)")
        try team.commit("alice", "merge bob")
        try team.set("alice", "after", "x")

        // alice rekeys on main (drops carol), bob changes a secret: alice's rekey is kept.
        try team.git("bob", ["checkout", "-q", "-b", "bob2"]).expectSuccess()
        try team.set("bob", "api", "api-VALUE-b2")
        try team.commit("bob", "rotate api")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        let two = ["alice", "bob"].flatMap { ["--recipient", team.identities[$0]!.recipient.encoded] }
        try team.vault("alice", ["rekey"] + two).expectSuccess()
        try team.commit("alice", "drop carol")
        let header = try Age.header(of: team.fileBytes)
        try team.git("alice", ["merge", "-q", "--no-edit", "bob2"]).expectSuccess()
        #expect(try Age.header(of: team.fileBytes) == header)
        #expect(try team.contents("alice")["api"] == "api-VALUE-b2")
        #expect {
            try Age.decrypt(team.fileBytes, identities: [team.identities["carol"]!])
        } throws: { ($0 as? AgeError)?.kind == .noMatch }
    }

    @Test("rekeys on both sides: a conflict about the recipients that keeps the merging user's header")
    func rekeysOnBothSides() throws {
        let team = try GitTeam(members: ["alice", "bob"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        let both = ["alice", "bob"].flatMap { ["--recipient", team.identities[$0]!.recipient.encoded] }
        try team.git("bob", ["checkout", "-q", "-b", "bob"]).expectSuccess()
        try team.vault("bob", ["rekey"] + both).expectSuccess()
        try team.set("bob", "sentry", "sentry-VALUE-b")
        try team.commit("bob", "rekey, add sentry")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.vault("alice", ["rekey"] + both).expectSuccess()
        try team.commit("alice", "rekey")
        let header = try Age.header(of: team.fileBytes)

        let merge = try team.git("alice", ["merge", "--no-edit", "bob"])
        #expect(merge.status != 0)
        #expect(merge.stderr.contains("the recipients changed on the other side"), "\(merge.stderr)")
        #expect(try Age.header(of: team.fileBytes) == header)
        #expect(try team.contents("alice") == ["npm": "npm-VALUE-one", "sentry": "sentry-VALUE-b"])
        try team.set("alice", "after", "x")
    }

    @Test("a merge by someone without a key is a one-line conflict that leaves the file as git left it")
    func mergeWithoutKey() throws {
        let team = try GitTeam(members: ["alice"], others: ["bob"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        try team.git("alice", ["checkout", "-q", "-b", "side"]).expectSuccess()
        try team.set("alice", "db", "db-VALUE-1")
        try team.commit("alice", "add db")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.set("alice", "sentry", "sentry-VALUE-b")
        try team.commit("alice", "add sentry")
        let ours = team.fileBytes

        // bob is not a recipient; then nobody at all: no identity, no passphrase, no terminal.
        for person in ["bob", "nobody"] {
            let merge = try team.git(person, ["merge", "--no-edit", "side"])
            #expect(merge.status != 0)
            let lines = merge.stderr.split(separator: "\n").filter { $0.hasPrefix("vault:") }
            #expect(lines.count == 1, "\(merge.stderr)")
            #expect(lines.first?.contains("cannot merge deploy/secrets.age by secret") == true, "\(merge.stderr)")
            #expect(team.fileBytes == ours, "the file must stay as git left it")
            let diff = try team.git(person, ["diff", "HEAD~1", "HEAD"])
            #expect(diff.stdoutText.contains("not shown, it cannot be opened here"), "\(diff.stdoutText)")
            if person == "nobody" {
                // The line is worded as the tool words errors: what to set comes with it.
                #expect(diff.stdoutText.contains("; set one of VAULT_IDENTITY,"), "\(diff.stdoutText)")
            }
            try team.git(person, ["merge", "--abort"]).expectSuccess()
        }
    }

    @Test("a passphrase file merges by secret too")
    func passphraseFile() throws {
        let team = try GitTeam(members: ["alice", "bob"], passphrase: "team passphrase")
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        try team.git("bob", ["checkout", "-q", "-b", "bob"]).expectSuccess()
        try team.set("bob", "sentry", "sentry-VALUE-b")
        try team.commit("bob", "add sentry")
        try team.git("alice", ["checkout", "-q", "main"]).expectSuccess()
        try team.set("alice", "db", "db-VALUE-1")
        try team.commit("alice", "add db")
        // Without the passphrase and without a terminal: one line, no prompt, the file as git left it.
        let ours = team.fileBytes
        let refused = try team.git("alice", ["merge", "--no-edit", "bob"], unset: ["VAULT_PASSPHRASE"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot merge deploy/secrets.age by secret"), "\(refused.stderr)")
        #expect(team.fileBytes == ours)
        try team.git("alice", ["merge", "--abort"]).expectSuccess()
        try team.git("alice", ["merge", "-q", "--no-edit", "bob"]).expectSuccess()
        #expect(try team.contents("alice") == ["npm": "npm-VALUE-one", "sentry": "sentry-VALUE-b", "db": "db-VALUE-1"])
        try team.set("alice", "after", "x")
    }

    @Test("a clone without setup treats the file as binary: a conflict, never conflict markers")
    func cloneWithoutSetup() throws {
        let team = try GitTeam(members: ["alice"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.commit("alice", "base")
        let clone = team.directory.appendingPathComponent("clone").path
        try team.git("alice", ["clone", "-q", team.repo, clone], inRepo: false).expectSuccess()
        let cloned = clone + "/" + GitTeam.relative
        func git(_ arguments: [String]) throws -> ToolResult {
            try team.git("alice", ["-C", clone] + arguments, inRepo: false)
        }
        try git(["checkout", "-q", "-b", "side"]).expectSuccess()
        try team.vault("alice", ["set", "npm"], stdin: Array("npm-VALUE-two".utf8), file: cloned).expectSuccess()
        try git(["commit", "-q", "-am", "side"]).expectSuccess()
        try git(["checkout", "-q", "main"]).expectSuccess()
        try team.vault("alice", ["set", "db"], stdin: Array("db-VALUE-1".utf8), file: cloned).expectSuccess()
        try git(["commit", "-q", "-am", "main"]).expectSuccess()
        let ours = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cloned)))
        let diff = try git(["diff", "main", "side"])
        #expect(diff.stdoutText.contains("Binary files"), "\(diff.stdoutText)")
        let merge = try git(["merge", "--no-edit", "side"])
        #expect(merge.status != 0 && merge.stdoutText.contains("CONFLICT"), "\(merge.stdoutText)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: cloned))) == ours, "no conflict markers, ours kept")
    }

    @Test("setup writes no file through a link out of the work tree, nor into anything but a regular file")
    func setupRefusesLinkedFiles() throws {
        let directory = try makeTemporaryDirectory(prefix: "vault-git")
        defer { removeTemporaryDirectory(directory) }
        let repo = directory.appendingPathComponent("repo").path
        let outside = directory.appendingPathComponent("profile").path
        try Data("export A=1\n".utf8).write(to: URL(fileURLWithPath: outside))
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C.UTF-8",
        ]
        try runTool("/usr/bin/git", ["init", "-q", repo], environment: environment).expectSuccess()
        func setup() throws -> ToolResult {
            try runTool(
                "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", repo, VaultRunner.binary, "git", "setup", "x.age"],
                environment: environment, timeout: 120)
        }
        // A crafted repository: its .gitattributes (then its .gitignore) links to a file outside.
        for name in [".gitattributes", ".gitignore"] {
            try FileManager.default.createSymbolicLink(atPath: repo + "/" + name, withDestinationPath: "../profile")
            try setup().expectFailure(2, "\(repo)/\(name) is a symbolic link, not a regular file in the work tree")
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "export A=1\n")
            try FileManager.default.removeItem(atPath: repo + "/" + name)
            try Data().write(to: URL(fileURLWithPath: repo + "/" + name))
        }
        #expect(mkfifo(repo + "/.gitattributes.fifo", 0o600) == 0)
        try FileManager.default.removeItem(atPath: repo + "/.gitattributes")
        try FileManager.default.moveItem(atPath: repo + "/.gitattributes.fifo", toPath: repo + "/.gitattributes")
        try setup().expectFailure(2, "\(repo)/.gitattributes is a special file, not a regular file in the work tree")
        try FileManager.default.removeItem(atPath: repo + "/.gitattributes")
        try setup().expectSuccess()
        #expect(try String(contentsOfFile: repo + "/.gitattributes", encoding: .utf8) == "/x.age binary\n")
    }

    @Test("textconv's fingerprints: stable across writes of other secrets, different for one value under two names")
    func fingerprintsBindTheName() throws {
        let team = try GitTeam(members: ["alice"])
        defer { team.cleanUp() }
        try team.set("alice", "npm", "npm-VALUE-one")
        try team.set("alice", "db", "npm-VALUE-one")
        func fingerprints() throws -> [String: String] {
            let shown = try team.vault("alice", ["git", "textconv", team.file])
            shown.expectSuccess()
            Self.expectNoValue(shown.stdoutText)
            var result: [String: String] = [:]
            for line in shown.stdoutText.split(separator: "\n") where !line.hasPrefix("#") {
                let fields = line.split(separator: " ")
                result[String(fields[0])] = fields.last.map { String($0.dropFirst("fingerprint=".count)) }
            }
            return result
        }
        let before = try fingerprints()
        #expect(before.count == 2 && before["vault/npm"] != before["vault/db"], "\(before)")
        try team.set("alice", "sentry", "sentry-VALUE-b")
        let after = try fingerprints()
        #expect(after["vault/npm"] == before["vault/npm"] && after["vault/db"] == before["vault/db"], "\(after)")
        #expect(after.count == 3)
    }

    @Test("setup runs git from an absolute PATH folder only, as vault runs age plugins")
    func setupFindsGitInAbsoluteFolders() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("bin/git").path, withDestinationPath: "/usr/bin/git")
        func setup(path: String) throws -> ToolResult {
            try runTool(
                "/bin/sh",
                ["-c", "cd \"$0\" && exec \"$@\"", directory.path, VaultRunner.binary, "git", "setup", "x.age"],
                environment: ["PATH": path, "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C.UTF-8"],
                timeout: 120)
        }
        // git is there, but only through relative entries: it is not run.
        try setup(path: "bin:.:").expectFailure(5, "git was not found in PATH (only its absolute folders are searched)")
        // From an absolute folder it runs, and finds no work tree here (its own message is on
        // the shared standard error too).
        let found = try setup(path: "/usr/bin:/bin")
        #expect(
            found.status == 5 && found.stderr.contains("vault: git could not find the work tree"), "\(found.stderr)")
    }
}
