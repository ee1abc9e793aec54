import VaultCore
import VaultStorage

/// Parsing of `--expires-in` and `--expires-at`.
enum Expiry {
    /// The expiry time named by at most one of the two options, or nil.
    static func parse(at: String?, in duration: String?, now: Timestamp = .now()) throws(VaultError) -> Timestamp? {
        switch (at, duration) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw VaultError(.usage, "give --expires-in or --expires-at, not both")
        case (let text?, nil):
            guard let time = Timestamp(rfc3339: text) else {
                throw VaultError(.usage, "--expires-at '\(text)' is not an RFC 3339 time like 2026-12-01T09:00:00Z")
            }
            return time
        case (nil, let text?):
            return now.adding(seconds: try seconds(text))
        }
    }

    /// The longest `--expires-in`: 100 years of 366 days.
    static let longest: Int64 = 100 * 366 * 86_400

    /// `--expires-in`'s seconds, in the grammar of every duration (``DurationText``): `900`,
    /// `90s`, `25m`, `12h`, `30d`, `2w`; at least a second.
    static func seconds(_ text: String) throws(VaultError) -> Int64 {
        try DurationText.seconds(parsing: text, what: "--expires-in", in: 1...longest)
    }
}
