import VaultAgeFile
import VaultCore
import VaultFeatures
import VaultStorage

/// `vault git setup|textconv|merge`: a team's vault file in a git repository (docs/ci.md).
extension CommandSpec {
    static let git = CommandSpec(
        name: "git", operands: "setup PATH...|textconv FILE|merge BASE OURS THEIRS PATH", operandCompletion: .file,
        summary: "let git diff and merge a vault file by secret, never showing a value",
        details: """
            'vault git setup PATH...' (inside a git work tree) marks each vault file 'binary' in the
            committed .gitattributes, so that no clone ever line-merges or text-diffs it, and turns on
            'diff=vault merge=vault' for this clone only, in $GIT_DIR/info/attributes, and ignores its
            lock file PATH.lock in the committed .gitignore; the repository's local configuration then
            runs this vault, by its absolute path, as the textconv and merge driver. It can be run
            again: it prints only what it changed. Every teammate runs it once per clone. Commit
            .gitattributes and .gitignore. Setup writes only regular files (a link or a FIFO there is
            refused) and runs git from the absolute folders of PATH only.
            'vault git textconv FILE' is what git runs to show a vault file: one line per secret, sorted
            (SERVICE/NAME, created, updated, expires, and a fingerprint of the name and value, an HMAC
            keyed by a key derived from the file key: it shows whether a value changed, lets nobody
            without the key test a guess, differs for two secrets with one value, and changes at every
            rekey). Never a value. Without a key it prints one line; it never prompts.
            'vault git merge BASE OURS THEIRS PATH' is git's merge driver (%O %A %B %P): it merges by
            secret. A change on one side is taken; the same value and expiry on both sides is no
            conflict; different changes, or removed on one side and changed on the other, are a conflict
            (exit 7) that names each secret and keeps your version of it, with every other change merged.
            Their version stays in git's index (theirs=$(mktemp) && git show :3:PATH > "$theirs", then
            vault --file "$theirs" get NAME). The merged file keeps your recipients; recipients
            changed on the other side are taken only if you accepted them with 'vault trust', else it
            is a conflict. It is sealed only under recipients you trust: if yours changed since you
            last wrote the file, it is a conflict that writes nothing. A side no key here opens is a
            conflict with the file left as git left it.
            Keys come from VAULT_IDENTITY, VAULT_IDENTITY_FILE, VAULT_PASSPHRASE or VAULT_PASSPHRASE_FILE;
            it never prompts. See docs/ci.md.
            """,
        options: [],
        run: { (invocation) throws(VaultError) in
            let operands = invocation.commandLine.operands + (invocation.commandLine.terminated ?? [])
            guard !operands.isEmpty else {
                throw VaultError(.usage, "'vault git' needs an action; usage: vault git setup|textconv|merge ...")
            }
            switch operands[0] {
            case "setup": return try GitCommand.setup(invocation, paths: Array(operands.dropFirst()))
            case "textconv":
                guard operands.count == 2 else {
                    throw VaultError(.usage, "usage: vault git textconv FILE")
                }
                return try GitCommand.textconv(invocation, file: operands[1])
            case "merge":
                guard operands.count == 5 else {
                    throw VaultError(.usage, "usage: vault git merge BASE OURS THEIRS PATH (git's %O %A %B %P)")
                }
                return GitCommand.merge(invocation, files: Array(operands[1...4]))
            default:
                throw VaultError(
                    .usage, "unknown 'vault git' action '\(operands[0])'; use: vault git setup|textconv|merge")
            }
        })
}

/// The actions of `vault git`.
enum GitCommand {
    static func setup(_ invocation: Invocation, paths: [String]) throws(VaultError) -> Int32 {
        let setup = GitSetup(environment: invocation.environment, executable: try ThisProgram.path())
        let changes = try setup.run(paths: paths)
        if changes.isEmpty { StandardIO.print("vault git setup: nothing to change, already set up\n") }
        for change in changes {
            switch change {
            case .attribute(let file, let line), .ignored(let file, let line):
                StandardIO.print("added '\(line)' to \(file)\n")
            case .configuration(let key, let value): StandardIO.print("set \(key) to \(value)\n")
            }
        }
        if changes.contains(where: isShared) {
            StandardIO.print(
                "commit .gitattributes and .gitignore; each teammate runs 'vault git setup' in their clone\n")
        }
        return ExitStatus.success
    }

    private static func isShared(_ change: GitSetup.Change) -> Bool {
        switch change {
        case .attribute(".gitattributes", _), .ignored: return true
        default: return false
        }
    }

    /// Prints the listing, or its one-line note: git shows whatever this prints, inside a pager
    /// that owns the terminal, so nothing here may prompt.
    static func textconv(_ invocation: Invocation, file: String) throws(VaultError) -> Int32 {
        let keys = try promptless(invocation).fileKeys(.vault, path: file)
        StandardIO.print(try VaultFileListing.text(ofFileAt: file, keys: keys, reason: \.wording))
        return ExitStatus.success
    }

    /// git's merge driver: exit 0 when merged, non-zero (git reports CONFLICT) otherwise.
    static func merge(_ invocation: Invocation, files: [String]) -> Int32 {
        let path = files[3]
        do throws(VaultError) {
            let factory = promptless(invocation)
            let merge = try VaultMerge.run(
                baseFile: files[0], oursFile: files[1], theirsFile: files[2], path: path,
                keys: try factory.fileKeys(.vault, path: path), trust: factory.headerTrust())
            for conflict in merge.conflicts {
                let what: String
                switch conflict.kind {
                case .changedOnBoth: what = "changed differently on both sides"
                case .removedHereChangedThere: what = "removed on your side, changed on theirs"
                case .changedHereRemovedThere: what = "changed on your side, removed on theirs"
                }
                StandardIO.error("conflict in \(path): \(conflict.name) \(what); your version is kept")
            }
            // Commands are printed for a shell: the path quoted, their version in a fresh temporary
            // file (a fixed name in /tmp could be someone else's file or link).
            let quoted = CompletionModel.quote(path)
            if let untrusted = merge.untrustedHeader {
                StandardIO.error(
                    "conflict in \(path): the recipients of your side changed since you last wrote it "
                        + "(\(untrusted.change)); nothing was merged, so nothing new is encrypted to them. Check with "
                        + "your team who changed it; to accept them: vault --file \(quoted) trust && "
                        + "git checkout -m -- \(quoted)")
            }
            if let change = merge.recipientChange {
                StandardIO.error(
                    "conflict in \(path): the recipients changed on the other side (now "
                        + "\(HeaderTrust.describe(change.theirs))\(change.named), yours: \(HeaderTrust.describe(change.ours))); "
                        + "the merge kept yours, so nothing is encrypted to theirs. Check with your team who "
                        + "they are; to accept them: git checkout --theirs -- \(quoted) && vault --file \(quoted) trust "
                        + "&& git checkout -m -- \(quoted)")
            }
            if !merge.conflicts.isEmpty {
                StandardIO.error(
                    "to resolve: theirs=$(mktemp) && git show \(CompletionModel.quote(":3:" + path)) > \"$theirs\"; "
                        + "vault --file \"$theirs\" get NAME; vault --file \(quoted) set NAME (or rm); "
                        + "git add -- \(quoted); rm -f \"$theirs\"")
            }
            return merge.isClean ? ExitStatus.success : ExitStatus.of(.conflict)
        } catch {
            StandardIO.error("cannot merge \(path) by secret, left as git left it: \(error.wording)")
            return ExitStatus.of(error.code)
        }
    }

    /// The glue without a prompt: git runs textconv and merge drivers with no one to answer.
    private static func promptless(_ invocation: Invocation) -> StoreFactory {
        StoreFactory(options: invocation.factory.options, configuration: invocation.factory.configuration, prompt: nil)
    }
}
