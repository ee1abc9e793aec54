import VaultCore
import VaultFeatures
import VaultStorage
import VaultSystem

/// The documented `--json` shapes (docs/json.md). Keys and their order are stable.
enum JSONOutput {
    /// `text` as a JSON string (the library's one escaper, ``JSONString``).
    static func string(_ text: String) -> String { JSONString.quoted(text) }

    static func time(_ time: Timestamp?) -> String {
        time.map { "\"\($0.rfc3339)\"" } ?? "null"
    }

    /// `{"service", "account", "created", "updated", "expires", "expired"}`: one `ls --json` element;
    /// a one-time code secret's adds `"kind"` and `"otp"`.
    static func entry(_ entry: SecretEntry, expired: Bool, oneTimeCode: OneTimeCodeSummary? = nil) -> String {
        "{" + fields(entry, expired: expired) + (oneTimeCode.map(self.oneTimeCode) ?? "") + "}"
    }

    /// `,"kind":"totp","otp":{...}`: what a one-time code secret's codes are, never its seed.
    static func oneTimeCode(_ summary: OneTimeCodeSummary) -> String {
        let varying = summary.period.map { "\"period\":\($0)" } ?? "\"counter\":\(summary.counter ?? 0)"
        return
            ",\"kind\":\(string(summary.kind.rawValue)),\"otp\":{\"algorithm\":\(string(summary.algorithm.rawValue)),"
            + "\"digits\":\(summary.digits),\(varying),\"issuer\":\(summary.issuer.map(string) ?? "null"),"
            + "\"label\":\(string(summary.label))}"
    }

    private static func fields(_ entry: SecretEntry, expired: Bool) -> String {
        "\"service\":\(string(entry.name.service)),\"account\":\(string(entry.name.account)),"
            + "\"created\":\(time(entry.metadata.created)),\"updated\":\(time(entry.metadata.updated)),"
            + "\"expires\":\(time(entry.metadata.expires)),\"expired\":\(expired)"
    }

    /// A JSON array, one entry per line.
    static func entries(_ entries: [(SecretEntry, expired: Bool, oneTimeCode: OneTimeCodeSummary?)]) -> String {
        if entries.isEmpty { return "[]\n" }
        return "[\n"
            + entries.map { "  " + entry($0.0, expired: $0.expired, oneTimeCode: $0.oneTimeCode) }
            .joined(separator: ",\n") + "\n]\n"
    }

    /// The `ls --json` fields followed by `"size"`: the `show --json` object, on one line.
    static func info(_ info: SecretInfo, approved: Bool? = nil) -> String {
        "{" + fields(info.entry, expired: info.state == .expired) + ",\"size\":\(info.size)"
            + (info.token.map { ",\"token\":" + token($0, approved: approved ?? false) } ?? "")
            + (info.oneTimeCode.map(oneTimeCode) ?? "") + "}\n"
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
