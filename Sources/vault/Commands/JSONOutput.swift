import VaultCore

/// The documented `--json` shapes (docs/json.md). Keys and their order are stable.
enum JSONOutput {
    /// `text` as a JSON string (the library's one escaper, ``JSONString``).
    static func string(_ text: String) -> String { JSONString.quoted(text) }

    static func time(_ time: Timestamp?) -> String {
        time.map { "\"\($0.rfc3339)\"" } ?? "null"
    }

    /// `{"service", "account", "created", "updated", "expires", "expired"}`: one `ls --json` element.
    static func entry(_ entry: SecretEntry, expired: Bool) -> String {
        "{" + fields(entry, expired: expired) + "}"
    }

    private static func fields(_ entry: SecretEntry, expired: Bool) -> String {
        "\"service\":\(string(entry.name.service)),\"account\":\(string(entry.name.account)),"
            + "\"created\":\(time(entry.metadata.created)),\"updated\":\(time(entry.metadata.updated)),"
            + "\"expires\":\(time(entry.metadata.expires)),\"expired\":\(expired)"
    }

    /// A JSON array, one entry per line.
    static func entries(_ entries: [(SecretEntry, expired: Bool)]) -> String {
        if entries.isEmpty { return "[]\n" }
        return "[\n" + entries.map { "  " + entry($0.0, expired: $0.expired) }.joined(separator: ",\n") + "\n]\n"
    }

    /// The `ls --json` fields followed by `"size"`: the `show --json` object, on one line.
    static func info(_ info: SecretInfo, approved: Bool? = nil) -> String {
        "{" + fields(info.entry, expired: info.state == .expired) + ",\"size\":\(info.size)"
            + (info.token.map { ",\"token\":" + token($0, approved: approved ?? false) } ?? "") + "}\n"
    }

    /// The `"token"` object of a living token in `show --json`: never a token.
    static func token(_ token: TokenSummary, approved: Bool) -> String {
        func text(_ value: String?) -> String { value.map(string) ?? "null" }
        return "{\"kind\":\(string(token.kind)),\"token_url\":\(text(token.tokenURL)),"
            + "\"client_id\":\(text(token.clientID)),\"client_secret_name\":\(text(token.clientSecretName)),"
            + "\"scope\":\(text(token.scope)),\"refresh_token\":\(token.holdsRefreshToken),"
            + "\"refreshable\":\(token.refreshable),\"lifetime\":\(token.lifetime.map(String.init) ?? "null"),"
            + "\"command\":\(text(token.command)),\"approved\":\(approved)}"
    }
}
