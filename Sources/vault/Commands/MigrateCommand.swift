import VaultCore
import VaultFeatures
import VaultStorage

extension CommandSpec {
    static let migrate = CommandSpec(
        name: "migrate", operands: "",
        summary: "move secrets to another backend; safe to interrupt and run again",
        details: """
            Moves the secrets of the current service (--service, VAULT_SERVICE, else vault), or of every
            service with --all, from the --from backend to the --to backend. BACKEND is file (the vault
            file of --file or VAULT_FILE), file:PATH, secret-service, or openbao (BAO_ADDR). --backend is not
            used.
            Each secret is written to the destination, read back and compared (value and metadata), and
            only then deleted from the source. One the destination already holds with the same value and
            expiry is skipped, and still deleted from the source. One it holds with a different value or
            expiry is a conflict: then nothing at all is changed, the conflicting names are listed on
            standard error and vault exits 7; --overwrite replaces them instead.
            If a migration is interrupted (even by kill -9), run the same command again: it finishes the
            job, and every secret ends in the destination exactly once.
            A destination file is unlocked with VAULT_TO_IDENTITY, VAULT_TO_IDENTITY_FILE,
            VAULT_TO_PASSPHRASE or VAULT_TO_PASSPHRASE_FILE if one is set, else with the same VAULT_*
            material as the source; a missing destination file is created for that material.
            --dry-run prints the plan, one ACTION<TAB>SERVICE<TAB>NAME line per secret (copy, skip,
            conflict or overwrite), changes nothing, and exits 7 if the real run would stop on conflicts.
            A summary goes to standard error. Exits 0 only if every secret went over.
            Lazy migration instead: set VAULT_FALLBACK=BACKEND, and each secret moves when it is read.
            """,
        options: [
            OptionSpec(
                .from, value: "BACKEND", "where the secrets are now: \(BackendKind.specFormsSpelledOut)"),
            OptionSpec(.to, value: "BACKEND", "where they go: \(BackendKind.specFormsSpelledOut)"),
            OptionSpec(.dryRun, "print what would happen to each secret and change nothing"),
            OptionSpec(.keepSource, "copy only: leave every secret in the source as well"),
            OptionSpec(.overwrite, "replace secrets the destination holds with a different value"),
            OptionSpec(.all, "migrate the secrets of every service, not only the current one"),
        ],
        run: { (invocation) throws(VaultError) in try MigrateCommand.run(invocation) })
}

/// `vault migrate`: the plan, the conflicts and the summary are printed here; the work is
/// VaultCore's ``Migration``.
enum MigrateCommand {
    static func run(_ invocation: Invocation) throws(VaultError) -> Int32 {
        _ = try invocation.operands(0...0)
        guard let from = invocation.value(.from), let to = invocation.value(.to) else {
            throw VaultError(
                .usage, "'vault migrate' needs --from BACKEND and --to BACKEND; usage: \(invocation.spec.synopsis)")
        }
        if invocation.factory.options.backend != nil {
            throw VaultError(.usage, "--backend does not apply to 'vault migrate'; --from and --to name both ends")
        }
        let all = invocation.flag(.all)
        if all, invocation.factory.options.service != nil {
            throw VaultError(.usage, "give --service or --all, not both")
        }
        let options = Migration.Options(
            service: all ? nil : try invocation.factory.service(), overwrite: invocation.flag(.overwrite),
            keepSource: invocation.flag(.keepSource))
        let (source, destination) = try invocation.factory.migrationStores(from: from, to: to)
        let migration = Migration(from: source, to: destination, options: options)
        let steps = try migration.plan()
        let route = "\(source.label) to \(destination.label)"
        let count = { (action: Migration.Action) in steps.filter { $0.action == action }.count }
        let conflicts = steps.filter { $0.action == .conflict }

        if invocation.flag(.dryRun) {
            let plan = steps.map { "\($0.action.rawValue)\t\($0.name.service)\t\($0.name.account)\n" }.joined()
            try StandardIO.write(plan.utf8, to: 1)
            StandardIO.error(
                "dry run, nothing changed: \(route): \(count(.copy)) to copy, \(count(.skip)) to skip, "
                    + "\(count(.conflict) + count(.overwrite)) conflicts"
                    + (count(.overwrite) > 0 ? " to overwrite" : "")
                    + (options.keepSource ? "; the source would be kept" : ""))
            return conflicts.isEmpty ? ExitStatus.success : ExitStatus.of(.conflict)
        }
        if steps.isEmpty {
            let scope = options.service.map { "in service '\($0)'" } ?? "in any service"
            StandardIO.error("nothing to migrate: \(source.label) holds no secrets \(scope)")
            return ExitStatus.success
        }
        if !conflicts.isEmpty {
            for step in conflicts {
                StandardIO.error(
                    "conflict: '\(step.name.account)' in service '\(step.name.service)' has a different value "
                        + "or expiry in \(destination.label)")
            }
            throw VaultError(
                .conflict,
                "nothing was changed: \(route): \(conflicts.count) of \(steps.count) secrets conflict; "
                    + "compare them, then run again with --overwrite to replace the destination's values")
        }
        let line = ProgressLine("migrating")
        migration.onProgress = line.update
        do throws(VaultError) {
            defer { line.finish() }
            try migration.run()
        } catch {
            for name in migration.progress.changedInSource {
                StandardIO.error(
                    "changed in the source meanwhile, kept there: '\(name.account)' in service '\(name.service)'")
            }
            StandardIO.error(
                "stopped: \(summary(migration, conflicts: count(.overwrite))); run the same command again to finish")
            throw error
        }
        StandardIO.error("\(route): \(summary(migration, conflicts: count(.overwrite)))")
        return ExitStatus.success
    }

    private static func summary(_ migration: Migration, conflicts: Int) -> String {
        let progress = migration.progress
        var text = "migrated \(progress.migrated), skipped \(progress.skipped), conflicts \(conflicts)"
        if progress.overwritten > 0 { text += " (\(progress.overwritten) overwritten)" }
        text +=
            migration.options.keepSource
            ? "; the source was kept" : "; removed \(progress.removedFromSource) from the source"
        return text
    }
}
