import VaultCore
import VaultFeatures
import VaultStorage

extension CommandSpec {
    static let ls = CommandSpec(
        name: "ls", operands: "",
        summary: "list secret names",
        details: """
            Prints the names of the current service's secrets, sorted, one per line; with --all, every
            service's secrets as SERVICE<TAB>NAME. When standard output is a terminal, an expired secret is
            marked "(expired ...)" and one that expires within 7 days "(expires ..., within 7 days)";
            when it is not (a pipe, a file), the lines are the bare names, so scripts can read them.
            --long prints NAME<TAB>STATE<TAB>EXPIRES everywhere: STATE is valid, soon (expires within
            7 days), expired, or refreshable (a living token vault refreshes on read, docs/tokens.md),
            EXPIRES an RFC 3339 time or '-'. A refreshable token never counts as expired. --json prints
            an array of objects with the keys service, account, created, updated, expires (may be null)
            and expired (docs/json.md).
            --expired lists only the expired secrets, in any of these forms.
            """,
        options: [
            OptionSpec(.json, "print JSON with each secret's metadata"),
            OptionSpec(.long, "print NAME<TAB>STATE<TAB>EXPIRES lines"),
            OptionSpec(.expired, "list only the expired secrets"),
            OptionSpec(.all, "list the secrets of every service"),
        ],
        run: { (invocation) throws(VaultError) in
            _ = try invocation.operands(0...0)
            if invocation.flag(.json), invocation.flag(.long) {
                throw VaultError(.usage, "give --json or --long, not both")
            }
            let all = invocation.flag(.all)
            let vault = try invocation.vault()
            let service = all ? nil : try invocation.factory.service()
            let (listed, refreshable) = try vault.listWithTokens(service: service)
            // A token vault refreshes on read is never shown as expired.
            var entries = listed.map { entry in
                let state = vault.expiryState(of: entry.metadata)
                return (entry, refreshable.contains(entry.name) && state == .expired ? .valid : state)
            }
            if invocation.flag(.expired) { entries = entries.filter { $0.1 == .expired } }
            let out: String
            if invocation.flag(.json) {
                var described: [(SecretEntry, expired: Bool, oneTimeCode: OneTimeCodeSummary?)] = []
                for (entry, state) in entries {
                    // A seed's parameters are in its value: read for these secrets only.
                    let summary =
                        entry.metadata.kind?.isOneTimeCode == true ? try vault.oneTimeCodeSummary(entry.name) : nil
                    described.append((entry, expired: state == .expired, oneTimeCode: summary))
                }
                out = JSONOutput.entries(described)
            } else if invocation.flag(.long) {
                out = entries.map { entry, state in
                    let shown = refreshable.contains(entry.name) ? "refreshable" : state.rawValue
                    return Listing.name(entry, all: all) + "\t\(shown)\t\(entry.metadata.expires?.rfc3339 ?? "-")\n"
                }.joined()
            } else if StandardIO.isTerminal(1) {
                out = Listing.marked(entries, all: all)
            } else {
                out = entries.map { Listing.name($0.0, all: all) + "\n" }.joined()
            }
            try StandardIO.write(out.utf8, to: 1)
            return ExitStatus.success
        })

    static let show = CommandSpec(
        name: "show", operands: "NAME", operandCompletion: .secretName,
        summary: "print a secret's metadata, never its value",
        details: """
            Prints the secret's service, account (its NAME), creation and update times, expiry time
            ('never' if none), whether it has expired, and the size of its value in bytes, one
            'key: value' per line. With --json, one object with the keys service, account, created,
            updated, expires, expired and size (docs/json.md). Expired secrets are shown too (exit 0);
            a missing one exits 1. For a living token (docs/tokens.md), 'refresh:' says how vault
            refreshes it, and --json adds a "token" object: kind (oauth or command), token_url,
            client_id, client_secret_name, scope, refresh_token (whether one is held), refreshable,
            lifetime, command and approved. 'trusted:' (and "approved") says whether this machine
            approved its refresh target ('vault trust NAME'). No token is ever shown.
            """,
        options: [OptionSpec(.json, "print the metadata as one JSON object")],
        run: { (invocation) throws(VaultError) in
            let vault = try invocation.vault()
            let info = try vault.info(try invocation.name())
            let approval = info.token == nil ? nil : try vault.refreshApproval(of: info.entry.name)
            if invocation.flag(.json) {
                try StandardIO.write(JSONOutput.info(info, approved: approval?.isApproved).utf8, to: 1)
                return ExitStatus.success
            }
            let metadata = info.entry.metadata
            var expires = metadata.expires?.rfc3339 ?? "never"
            if info.state == .soon { expires += " (within 7 days)" }
            let lines =
                [
                    ("service", info.entry.name.service), ("account", info.entry.name.account),
                    ("created", metadata.created.rfc3339), ("updated", metadata.updated.rfc3339),
                    ("expires", expires), ("expired", info.state == .expired ? "yes" : "no"),
                    ("size", "\(info.size) \(info.size == 1 ? "byte" : "bytes")"),
                ] + (info.token.map(Listing.tokenLines) ?? [])
                + (approval.map { [("trusted", Listing.trusted($0, account: info.entry.name.account))] } ?? [])
                + (info.oneTimeCode.map(Listing.oneTimeCodeLines) ?? [])
            try StandardIO.write(lines.map { "\($0.0):".padding(to: 9) + $0.1 + "\n" }.joined().utf8, to: 1)
            return ExitStatus.success
        })
}

/// The text forms of `vault ls`.
enum Listing {
    /// The `show` lines of a living token.
    static func tokenLines(_ token: TokenSummary) -> [(String, String)] {
        var how: String
        if token.kind == "oauth" {
            how = "oauth, client \(token.clientID ?? "-") at \(token.tokenURL ?? "-")"
            how += token.holdsRefreshToken ? ", refresh token held" : ", no refresh token"
        } else {
            how = "command: \(token.command ?? "")"
        }
        return [("refresh", how)]
    }

    /// The `show` lines of a one-time code secret: what its codes are, never its seed.
    static func oneTimeCodeLines(_ summary: OneTimeCodeSummary) -> [(String, String)] {
        let varying = summary.period.map { "a code every \($0) s" } ?? "next counter \(summary.counter ?? 0)"
        var lines = [
            ("kind", "\(summary.kind), \(summary.algorithm.rawValue), \(summary.digits) digits, \(varying)"),
            ("label", summary.label),
        ]
        if let issuer = summary.issuer { lines.append(("issuer", issuer)) }
        return lines
    }

    /// The `show` line that says whether this machine approved a living token's refresh target.
    static func trusted(_ state: RefreshApproval.State, account: String) -> String {
        switch state {
        case .recorded: "yes, approved on this machine"
        case .listedOrigin: "yes, its origin is in VAULT_REFRESH_ORIGINS"
        case .listedCommand: "yes, its command is in the refresh command list"
        case .notApproved(let reason): "no: \(reason); 'vault trust \(account)' approves it"
        case .changed(let change):
            "no: changed since it was approved here (\(change)); 'vault trust \(account)' approves it"
        }
    }

    static func name(_ entry: SecretEntry, all: Bool) -> String {
        all ? "\(entry.name.service)\t\(entry.name.account)" : entry.name.account
    }

    /// Names with a mark after expired and soon-to-expire secrets, for a person at a terminal.
    static func marked(_ entries: [(SecretEntry, ExpiryState)], all: Bool) -> String {
        let width = entries.filter { $0.1 != .valid }.map { name($0.0, all: all).count }.max() ?? 0
        return entries.map { entry, state in
            let text = name(entry, all: all)
            let expires = entry.metadata.expires?.rfc3339 ?? ""
            switch state {
            case .valid: return text + "\n"
            case .soon: return text.padding(to: width + 2) + "(expires \(expires), within 7 days)\n"
            case .expired: return text.padding(to: width + 2) + "(expired \(expires))\n"
            }
        }.joined()
    }
}
